import type { TableSpec } from '../../../engine/index.js';
import { linkTable } from '../../lib/db/table-parts.js';
import type { EntityRegistry } from '../../lib/registry.js';

/** Read marks of notifications. */
export function notificationTableSpecs(registry: EntityRegistry): TableSpec[] {
  const table = (name: string): string => registry.require(name).table;
  return [
    // One row per user and notification read; created_at is when it was read.
    linkTable(
      'sys_notification_read',
      ['notification_id', table('notification')],
      ['user_id', table('sysuser')],
    ),
  ];
}
