import type { RecordScreenProps } from '../../entity/record-screen.js';
import { useEntity } from '../../entity/resources.js';
import { AuditHistory } from './AuditHistory.js';

/** The audit history of the record checked in a generated list (its record action "history"). */
export default function RecordHistory({ record, resource }: RecordScreenProps) {
  const entity = useEntity(resource);
  const keyName = entity?.key.name ?? 'id';
  return <AuditHistory entity={resource} recordKey={String(record[keyName] ?? '')} />;
}
