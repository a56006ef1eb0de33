import type { BaseRecord } from '@refinedev/core';

/** What a screen opened from a generated list receives. */
export interface RecordScreenProps {
  /** The one checked record of the list. */
  record: BaseRecord;
  /** The entity name of the list (e.g. sysrole). */
  resource: string;
  /** Closes the drawer; `hasChanged` refreshes the list. */
  onClose: (hasChanged?: boolean) => void;
}
