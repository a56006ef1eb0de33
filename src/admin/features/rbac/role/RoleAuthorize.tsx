import { Tabs } from 'antd';
import type { RecordScreenProps } from '../../../entity/record-screen.js';
import { useT } from '../../../i18n.js';
import { useCanButton } from '../../../lib/api.js';
import { tab } from '../../../lib/screen-parts.js';
import { RoleButtons } from './RoleButtons.js';
import { RoleMenus } from './RoleMenus.js';
import { RoleScopes } from './RoleScopes.js';
import { RoleUrls } from './RoleUrls.js';
import { RoleUsers } from './RoleUsers.js';

/**
 * Role authorization (docs/product.md §6 "role management covers authorizing menus, buttons and URLs, and
 * assigning users"), opened from the role list for one checked role. Each tab saves on its own.
 */
export default function RoleAuthorize({ record }: RecordScreenProps) {
  const t = useT();
  const can = useCanButton('sysrole');
  const roleId = Number(record.id);
  const roleCode = String(record.roleCode ?? '');
  const canSave = can('update');
  return (
    <Tabs
      data-testid="role-authorize"
      items={[
        tab('users', t('admin.screens.role.users'), <RoleUsers roleId={roleId} canSave={canSave} />),
        tab('menus', t('admin.screens.role.menus'), <RoleMenus roleId={roleId} canSave={canSave} />),
        tab(
          'buttons',
          t('admin.screens.role.buttons'),
          <RoleButtons roleCode={roleCode} canSave={canSave} />,
        ),
        tab('urls', t('admin.screens.role.urls'), <RoleUrls roleId={roleId} canSave={canSave} />),
        tab('scopes', t('admin.screens.role.scopes'), <RoleScopes roleId={roleId} canSave={canSave} />),
      ]}
    />
  );
}
