/** What other features may use of the rbac feature (docs/architecture.md: features reach each other only here). */
export { currentAuthoritySchema } from './answers.js';
export { currentAuthority } from './permissions/authority.js';
export { isTenantsMenu, namesNoOtherTenant } from './permissions/tenant-menus.js';
export {
  assertAdmin,
  assertPlatformAdmin,
  assertPlatformRoute,
  assertAllFound,
  assertOwnRecords,
  assertOwnReferences,
  assertUrlGranted,
  isAdmin,
  isPlatformAdmin,
  openRecordPolicy,
  recordPolicy,
  type RecordAccessMode,
  type RecordPolicy,
} from './permissions/policy.js';
export { assertFieldsWritable, fieldRightsFor } from './permissions/field-rights.js';
export { isWithinScope } from './permissions/row-scope.js';
export { replaceLinks, type RoleLink } from './services/links.js';
export { rbacModule } from './module.js';
export { orgUserTree } from './services/org-users.js';
export { postOptions } from './services/posts.js';
export { roleLinks } from './services/roles.js';
