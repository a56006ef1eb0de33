import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

// The screens import their props from record-screen.ts, not from here: this module lazy-loads them.
export type { RecordScreenProps } from './record-screen.js';
import type { RecordScreenProps } from './record-screen.js';

/**
 * A toolbar action of a generated list that opens a hand-written screen about exactly one
 * checked record (docs/product.md §8 "Please check the record!", "Only one record can be checked!"), in a
 * drawer. Entities without actions get none: the generated screen does not depend on them.
 */
export interface RecordAction {
  key: string;
  /** i18n key of the button and drawer title. */
  titleKey: string;
  /** Menu button code that must be granted to the role (route.buttons), when set. */
  button?: string;
  /** Drawer width in px (default 720). */
  width?: number;
  screen: LazyExoticComponent<ComponentType<RecordScreenProps>>;
}

/** The record actions of each entity, by entity name (screens in src/admin/features). */
export const RECORD_ACTIONS: Readonly<Record<string, readonly RecordAction[]>> = {
  sysrole: [
    {
      key: 'authorize',
      titleKey: 'admin.screens.actions.roleAuthorize',
      button: 'update',
      width: 820,
      screen: lazy(() => import('../features/rbac/role/RoleAuthorize.js')),
    },
  ],
  sysurl: [
    {
      key: 'roles',
      titleKey: 'admin.screens.actions.urlRoles',
      button: 'update',
      width: 520,
      screen: lazy(() => import('../features/rbac/links/UrlRoles.js')),
    },
  ],
  syspost: [
    {
      key: 'roles',
      titleKey: 'admin.screens.actions.postRoles',
      button: 'update',
      width: 520,
      screen: lazy(() => import('../features/rbac/links/PostRoles.js')),
    },
  ],
  sysmenu: [
    {
      key: 'authority',
      titleKey: 'admin.screens.actions.menuAuthority',
      button: 'update',
      width: 820,
      screen: lazy(() => import('../features/rbac/menu/MenuAuthority.js')),
    },
  ],
  sysorg: [
    {
      key: 'users',
      titleKey: 'admin.screens.actions.orgUsers',
      width: 720,
      screen: lazy(() => import('../features/rbac/org/OrgUsers.js')),
    },
  ],
  sysuser: [
    {
      key: 'posts',
      titleKey: 'admin.screens.actions.userPosts',
      width: 720,
      screen: lazy(() => import('../features/rbac/user/UserPosts.js')),
    },
    {
      key: 'roles',
      titleKey: 'admin.screens.actions.userRoles',
      button: 'update',
      width: 520,
      screen: lazy(() => import('../features/rbac/user/UserRoles.js')),
    },
  ],
};

/** Every generated list's record history: the audit trail of the checked record (screens/monitor). */
export const HISTORY_ACTION: RecordAction = {
  key: 'history',
  titleKey: 'monitor.audit.history',
  width: 720,
  screen: lazy(() => import('../features/monitor/RecordHistory.js')),
};
