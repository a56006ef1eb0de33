/**
 * Shapes of API answers that are not entity records, shared by the server and the front-ends
 * (DESIGN.md, HTTP contract): the server builds them, the back-office and the portal read them.
 */
import type { FieldError, Titles } from './types.js';
import type { TreeNode } from './tree.js';

/** A successful answer: every JSON answer of the API is wrapped in it. */
export interface Envelope<T = unknown> {
  code: 200;
  message: 'success';
  data: T;
}

/**
 * A failed answer: the HTTP status in code, a readable message, error:"invalid_token" on a 401,
 * field errors (JSON pointers) on a 400 or 409.
 */
export interface ErrorEnvelope {
  code: number;
  message: string;
  error?: string;
  errors?: FieldError[];
}

/** One page of a paged query (the generated …/query and the paged extra endpoints). */
export interface Page<T> {
  records: T[];
  total: number;
  currentPage: number;
  pageSize: number;
  /** False when total is an estimate (the generated query above a size threshold). */
  totalExact?: boolean;
}

/** POST …/delete. */
export interface Deleted {
  deleted: number;
}

/** POST /api/uaa/oauth/token (OAuth2-shaped, so not in the envelope's data). */
export interface TokenAnswer {
  code: 200;
  message: 'success';
  access_token: string;
  token_type: 'bearer';
  refresh_token: string;
  expires_in: number;
  scope: string;
}

/** Route metadata stored in sys_menu.menu_meta (SPEC §2.3). */
export interface RouteMeta {
  hidden?: boolean;
  affix?: boolean;
  noCache?: boolean;
  keepAlive?: boolean;
  alwaysShow?: boolean;
  activeMenu?: string;
  roles?: string[];
  noRedirect?: boolean;
  icon?: string;
  title?: string;
  /** The menu's name per language, when it has its own (a published form's titles). */
  titles?: Titles;
}

/** A menu as the menu tree and queryCurrentAuthority answer it. */
export type MenuNode = TreeNode<{
  id: number;
  menuCode: string;
  menuName: string;
  menuIcon?: string | null;
  menuPath: string;
  menuComponent?: string | null;
  menuSequence?: number | null;
  menuParent?: number | null;
  menuStatus?: string | null;
  menuButton?: string[] | null;
  menuMeta?: RouteMeta | null;
}>;

/**
 * POST /api/account/sysuserdetail/queryCurrentAuthority: what the caller's roles may see. Menu is
 * the menu record as the reader knows it (the server builds it from rows).
 */
export interface CurrentAuthority<Menu = MenuNode> {
  /** The roles the answer is for: the roles acted in (RoleCode header), narrowed by the post. */
  roles: string[];
  /** The role acted in now (the first of roles), null when the post leaves none. */
  currentRole: string | null;
  /** The post the answer is for, or null. */
  postCode: string | null;
  /** The menu tree the roles allow (enabled menus only). */
  menus: Menu[];
  /** Every allowed menu path, nested routes included (SPEC §3 "menu-for-user response"). */
  menu: string[];
  /** Buttons the roles may use, by menu code. */
  buttons: Record<string, string[]>;
}

/** An organisation with its sub-organisations and then its users (…/sysorg/queryOrgUserTree). */
export interface OrgNode {
  key: string;
  type: 'org';
  id: number;
  title: string;
  orgName: string;
  orgType: string | null;
  orgParent: number;
  children: OrgUserNode[];
}

/** A user under their organisation. */
export interface UserLeaf {
  key: string;
  type: 'user';
  id: number;
  title: string;
  username: string;
  nickname: string | null;
  orgId: number | null;
  status: string | null;
  /** Assigned: holds the role (queryOrgUserTree), or is assigned to the model (queryModelOrgUserTree). */
  checked: boolean;
  /** The role is the user's main role (sysuser.roleId), which the role's user list cannot take away. */
  isMainRole: boolean;
  isLeaf: true;
}

export type OrgUserNode = OrgNode | UserLeaf;

/** A post the caller holds (GET /api/account/sysuserdetail/queryPostOptions), main post first. */
export interface PostOption {
  id: number;
  postCode: string;
  postName: string;
  postType: string;
}

/** A post of a user: their main post, or one they hold part-time. */
export type PostType = 'main' | 'parttime';

/**
 * A post of GET …/sysuserpost/querySysUserPostTree?userId=: the post record (its other fields
 * too), marked when the user holds it.
 */
export type UserPostNode = TreeNode<{
  id: number;
  postCode: string;
  postName: string;
  checked: boolean;
  /** Null when the user does not hold the post. */
  postType: PostType | null;
  postDescription: string | null;
  /** The sysuserpost record; null when the user does not hold the post. */
  userPostId: number | null;
}>;

/**
 * A role of the tenant as GET …/sysrole/queryRoleName answers it: checked when the user and/or the
 * post asked about holds it.
 */
export interface RoleOption {
  id: number;
  roleCode: string;
  roleName: string;
  checked: boolean;
}

/** The fields hidden from one role on one menu's screen (GET …/sysmenu/queryDataFieldByMenuCode). */
export interface DataFieldPermission {
  id: number;
  roleCode: string;
  menuCode: string;
  dataFields: string[];
}

/** Sign-ins of one day (GET /api/admin/sysuser/querySignInsPerDay). */
export interface SignInDay {
  /** The calendar day in the caller's time zone, YYYY-MM-DD. */
  day: string;
  /** Sign-ins that day. */
  signIns: number;
  /** Different users who signed in that day. */
  users: number;
}

/** A character captcha (GET /api/account/captcha/getCharCaptcha): sent back as captchaId and charCaptcha. */
export interface CharCaptcha {
  captchaId: string;
  /** The image, as SVG markup. */
  svg: string;
  /** Seconds the captcha stays good. */
  expiresIn: number;
}

/** A live session as GET /api/admin/sysuser/queryOnlineSysUser answers it (dates as ISO text). */
export interface OnlineSession {
  id: number;
  userId: number;
  username: string;
  nickname: string | null;
  clientCode: string;
  ip: string | null;
  userAgent: string | null;
  loginAt: string;
  lastSeenAt: string | null;
  expiresAt: string;
  isCurrent: boolean;
}

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

/** The caller's own record as querySysUserDetail returns it: who they are and what they may edit. */
export type OwnDetail = { id: number; username: string; version: number } & {
  [K in OwnProfileField]: string | null;
};

/** What a stored file is for: pictures (jpg, jpeg, gif, png, bmp) or attachments. */
export type FileUse = 'image' | 'attachment';

/** A file as upload and query answer it; size in KB as SPEC §3 has it, sizeBytes exact. */
export interface FileRecord {
  id: number;
  originalFilename: string;
  size: number;
  sizeBytes: number;
  contentType: string;
  fileType: string;
  use: FileUse;
  ownerName: string;
  createdAt: string;
  /** The download address (needs the caller's token). */
  url: string;
}

/** A file as forms and lists show it (/api/file/file/info): its name and where to fetch it. */
export interface FileLink {
  id: number;
  originalFilename: string;
  size: number;
  fileType: string;
  contentType: string;
  use: FileUse;
  /** The download address (needs the caller's token). */
  url: string;
  /** The public address of a picture; absent for attachments. */
  pictureUrl?: string;
}

/**
 * A file offered with published portal content (a notice's attachments): its address needs no
 * token and works while the content is published.
 */
export interface PortalAttachment {
  id: number;
  originalFilename: string;
  /** KB, two decimals. */
  size: number;
  sizeBytes: number;
  fileType: string;
  url: string;
}

// The netdisc (/api/file/netdisc, issue 16).

export type NetdiscItemType = 'file' | 'folder';
export type NetdiscTargetType = 'user' | 'role' | 'org';

/** A file or folder of the netdisc, as calls name it. */
export interface NetdiscItemRef {
  type: NetdiscItemType;
  id: number;
}

export interface NetdiscFolder {
  id: number;
  name: string;
  parentId: number | null;
  createdAt: string;
}

export interface NetdiscFile {
  id: number;
  name: string;
  /** KB, as the file API gives it. */
  size: number;
  sizeBytes: number;
  contentType: string;
  fileType: string;
  folderId: number | null;
  ownerName: string;
  createdAt: string;
  url: string;
}

export interface FolderNode extends NetdiscFolder {
  children: FolderNode[];
}

export interface FolderListing {
  /** The folder listed, null for the caller's root. */
  folder: NetdiscFolder | null;
  /** Its ancestors from the top, for a breadcrumb (for a shared folder, from the shared one). */
  path: { id: number; name: string }[];
  folders: NetdiscFolder[];
  files: NetdiscFile[];
  /** A folder shared with the caller: its content can be read and downloaded only. */
  readOnly: boolean;
}

export interface RecycledItem {
  type: NetdiscItemType;
  id: number;
  name: string;
  /** Bytes of the item (a folder: of the files it took with it). */
  sizeBytes: number;
  deletedAt: string;
  /** When it is purged for good (the tenant's netdiscRecycleDays after deletedAt). */
  expiresAt: string;
}

export interface ShareTarget {
  type: NetdiscTargetType;
  id: number;
  /** The user's, role's or organisation's name. */
  name: string;
}

export interface SharedWithMe {
  folders: (NetdiscFolder & { ownerName: string })[];
  files: NetdiscFile[];
}

export interface QuotaUsage {
  usedBytes: number;
  quotaBytes: number;
  usedMb: number;
  quotaMb: number;
}

export interface SearchResult {
  folders: (NetdiscFolder & { readOnly: boolean })[];
  files: (NetdiscFile & { readOnly: boolean })[];
}

// Designed forms (/api/generator/form, issue 14).

export type FormStatus = 'draft' | 'published';

/** A designed form: its entity schema (formContent), status and versions. */
export interface FormRecord {
  id: number;
  formCode: string;
  formName: string;
  formDescription: string | null;
  formContent: unknown;
  status: FormStatus;
  version: number;
  publishedVersion: number | null;
  /** /api/<api> of the live entity, while published. */
  api: string | null;
  menuId: number | null;
  createdAt: string;
  createdBy: string | null;
  updatedAt: string | null;
  updatedBy: string | null;
}

export interface FormVersion {
  version: number;
  action: 'save' | 'publish' | 'unpublish';
  formContent: unknown;
  createdAt: string;
  createdBy: string | null;
}

// Monitoring (/api/monitor, issue 17).

/** One process's figures over one sampling interval (the metrics dashboard's points). */
export interface MetricSample {
  at: string;
  instance: string;
  seconds: number;
  requests: number;
  rps: number;
  errors: number;
  errorRate: number;
  p50: number;
  p95: number;
  p99: number;
  heapMb: number;
  rssMb: number;
  loopLagMs: number;
  dbQueries: number;
  dbMs: number;
  dbAvgMs: number;
  rejections: number;
  rejectionsByRule: Record<string, number>;
  /** Live sessions of every tenant when the sample was taken (absent in samples of older versions). */
  activeSessions?: number;
  /** Pool connections in use, waiting clients and the pool's size (PostgreSQL; the embedded database has one connection). */
  poolInUse?: number;
  poolWaiting?: number;
  poolMax?: number;
}

// ---------------------------------------------------------------------------------------------
// Report designer (issue 18): /api/demo/reportdesigner

export type ReportFieldKind = 'text' | 'number' | 'date' | 'boolean' | 'dict' | 'ref';

/** A field of an entity as the report designer offers it. */
export interface ReportField {
  name: string;
  title: string;
  kind: ReportFieldKind;
  dict?: string;
  ref?: string;
  /** May be grouped by. */
  isDimension: boolean;
  /** May be summed and averaged. */
  isMeasure: boolean;
  /** The filter the entity's list offers on it (the query endpoint's parameter). */
  filter?: string;
}

export interface ReportEntity {
  name: string;
  title: string;
  fields: ReportField[];
}

export type ReportChartType = 'bar' | 'line' | 'pie' | 'table';

export interface ReportDefinition {
  entity: string;
  dimensions: string[];
  /** count:*, sum:<field>, avg:<field> */
  measures: string[];
  /** The entity list's own filters (its query parameters; a list for several values). */
  filters: Record<string, string | string[]>;
  chartType: ReportChartType;
}

export interface ReportColumn {
  key: string;
  title: string;
  kind: 'dimension' | 'measure';
}

export type ReportCell = string | number | null;

export interface ReportResult {
  columns: ReportColumn[];
  rows: Record<string, ReportCell>[];
  /** More groups than the limit existed; the first ones are shown. */
  isTruncated: boolean;
}
