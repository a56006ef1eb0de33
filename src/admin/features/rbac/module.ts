import { lazy } from 'react';
import { defineAdminModule } from '../../lib/modules.js';

/**
 * Users, roles, menus and their links: the data-field permissions page and the record actions of
 * the rbac lists (a drawer about the one checked record, entity/extensions.ts RecordAction).
 */
export default defineAdminModule({
  pages: { 'authority/datapermission': lazy(() => import('./datafields/DataPermission.js')) },
  recordActions: {
    sysrole: [
      {
        key: 'authorize',
        titleKey: 'admin.screens.actions.roleAuthorize',
        button: 'update',
        width: 820,
        screen: lazy(() => import('./role/RoleAuthorize.js')),
      },
    ],
    sysurl: [
      {
        key: 'roles',
        titleKey: 'admin.screens.actions.urlRoles',
        button: 'update',
        width: 520,
        screen: lazy(() => import('./links/UrlRoles.js')),
      },
    ],
    syspost: [
      {
        key: 'roles',
        titleKey: 'admin.screens.actions.postRoles',
        button: 'update',
        width: 520,
        screen: lazy(() => import('./links/PostRoles.js')),
      },
    ],
    sysmenu: [
      {
        key: 'authority',
        titleKey: 'admin.screens.actions.menuAuthority',
        button: 'update',
        width: 820,
        screen: lazy(() => import('./menu/MenuAuthority.js')),
      },
    ],
    sysorg: [
      {
        key: 'users',
        titleKey: 'admin.screens.actions.orgUsers',
        width: 720,
        screen: lazy(() => import('./org/OrgUsers.js')),
      },
    ],
    sysuser: [
      {
        key: 'posts',
        titleKey: 'admin.screens.actions.userPosts',
        width: 720,
        screen: lazy(() => import('./user/UserPosts.js')),
      },
      {
        key: 'roles',
        titleKey: 'admin.screens.actions.userRoles',
        button: 'update',
        width: 520,
        screen: lazy(() => import('./user/UserRoles.js')),
      },
      {
        key: 'twoFactor',
        titleKey: 'admin.screens.actions.userTwoFactor',
        button: 'update',
        width: 520,
        screen: lazy(() => import('./user/UserTwoFactor.js')),
      },
    ],
  },
});
