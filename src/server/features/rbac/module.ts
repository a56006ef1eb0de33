import { defineModule, type HookArgs, type ModuleDefinition } from '../../lib/modules/index.js';
import type { EntityRegistry } from '../../lib/registry.js';
import { applyRoleRowEffects } from './services/role-rows.js';

/**
 * The rbac side of roles, on the module API (lib/modules): a deleted role's data scopes and field
 * rights go with it, and a renamed role code takes them along, in the write's transaction.
 */
export function rbacModule(registry: EntityRegistry): ModuleDefinition {
  const onRole = async ({ trx, operation, before, data }: HookArgs): Promise<void> => {
    if (before === undefined) return;
    await applyRoleRowEffects({
      trx,
      registry,
      entity: registry.require('sysrole'),
      before,
      after: operation === 'delete' ? null : data,
    });
  };
  return defineModule({
    name: 'rbac',
    entities: { sysrole: { hooks: { afterChange: onRole, afterDelete: onRole } } },
  });
}
