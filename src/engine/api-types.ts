/** Shapes of API answers that are not entity records, shared by the server and the front-ends. */

/** The signed-in user (GET /api/uaa/users/getSysUser and getBidUser). */
export interface CurrentUser {
  id: number;
  username: string;
  nickname: string | null;
  /** Organisation name (SPEC §6). */
  name: string;
  /** Display name: the organisation name for a buyer sub-account, else the user name. */
  zname: string;
  avatar: string | null;
  mobile: string | null;
  email: string | null;
  roles: string[];
  userType: number;
  orgName: string;
  tenantCode: string;
  currentRole: string | null;
}

/**
 * What a user may change about themselves (updateSysUserDetail, the profile page); never the
 * password, roles, status, type or organisation.
 */
export const OWN_PROFILE_FIELDS = [
  'nickname',
  'email',
  'mobile',
  'phone',
  'geographic',
  'address',
  'profile',
  'avatar',
] as const;

export type OwnProfileField = (typeof OWN_PROFILE_FIELDS)[number];
