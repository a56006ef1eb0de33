import { defineModule, type HookArgs, type ModuleDefinition } from '../../lib/modules/index.js';
import type { EntityRegistry } from '../../lib/registry.js';
import { applyRoleChange, applyUserChange, type RecordChange } from './services/changes.js';

/** A write of the generated CRUD as the sessions' side reads it (an add has no sessions yet). */
const changeOf = ({ operation, before, data, changes }: HookArgs): RecordChange | undefined =>
  before === undefined
    ? undefined
    : { before, after: operation === 'delete' ? null : data, assigned: changes };

/**
 * The sessions' side of users and roles, on the module API (lib/modules): a password set, a
 * user disabled or moved, a main role changed, a role code renamed or deleted reaches the
 * sessions in the write's transaction, so a session never outlives the credentials or roles it
 * was opened with.
 */
export function sessionsModule(registry: EntityRegistry): ModuleDefinition {
  const onUser = async (args: HookArgs): Promise<void> => {
    const change = changeOf(args);
    if (change) await applyUserChange({ trx: args.trx, registry, change });
  };
  const onRole = async (args: HookArgs): Promise<void> => {
    const change = changeOf(args);
    if (change) await applyRoleChange({ trx: args.trx, registry, change });
  };
  return defineModule({
    name: 'sessions',
    entities: {
      sysuser: { hooks: { afterChange: onUser, afterDelete: onUser } },
      sysrole: { hooks: { afterChange: onRole, afterDelete: onRole } },
    },
  });
}
