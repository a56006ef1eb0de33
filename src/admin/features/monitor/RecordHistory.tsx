import type { RecordScreenProps } from '../../entity/record-screen.js';
import { useEntity } from '../../entity/resources.js';
import { AuditHistory } from './AuditHistory.js';

/**
 * The audit history of the record checked in a generated list (its record action "history"),
 * each earlier version with 恢复到此版本 (the entity's restoreVersion; the list shows the result).
 */
export default function RecordHistory({ record, resource, onClose }: RecordScreenProps) {
  const entity = useEntity(resource);
  const keyName = entity?.key.name ?? 'id';
  return (
    <AuditHistory
      entity={resource}
      recordKey={String(record[keyName] ?? '')}
      {...(entity ? { restoreUrl: `/api/${entity.api}/restoreVersion` } : {})}
      onRestored={() => onClose(true)}
    />
  );
}
