/**
 * Shapes of API answers that are not entity records, shared by the server and the front-ends
 * (docs/http-contract.md): the server builds them, the back-office and the portal read them.
 */
import type { EntitySchema, FieldError, Titles } from './types.js';
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

/** One thing wrong with an imported file: its spreadsheet row (1 = the header row), the field, why. */
export interface ImportProblem {
  /** The sheet of a detail (sub-table) row; absent for the first sheet's rows. */
  sheet?: string;
  row: number;
  field: string;
  message: string;
}

/** A column of an imported sheet and the field it fills. */
export interface ImportColumn {
  header: string;
  field: string;
  title: string;
}

/** POST …/import: what the rows of the file did, or (dryRun) would do. */
export interface ImportResult {
  dryRun: boolean;
  /** Data rows read. */
  total: number;
  /** Rows written (0 on a dry run): added and, with updateByKey, updated. */
  imported: number;
  /** Of the rows written, those that updated an existing record (updateByKey). */
  updated?: number;
  /** partial: rows left out for their problems (the others were written). */
  skipped?: number;
  /** Every problem up to a limit; problemCount tells how many there were. */
  problems: ImportProblem[];
  problemCount: number;
  columns: ImportColumn[];
  /** Headers of columns that are left alone: read-only columns such as an export's id or times. */
  ignored: string[];
  /** On a dry run, the first rows as read, by field name: the client's preview. */
  preview?: { row: number; values: Record<string, string> }[];
}

/** How an import treats its rows: all-or-nothing (the default) or the good rows only. */
export type ImportMode = 'all' | 'partial';

/** An import run in the background (POST …/import?background=true) and followed by its id. */
export interface ImportJob {
  id: number;
  entity: string;
  fileName: string;
  status: 'running' | 'done' | 'failed';
  mode: ImportMode;
  updateByKey: boolean;
  /** Data rows of the file (0 until counted). */
  total: number;
  /** Rows of the phase under way done so far. */
  done: number;
  /** What the job does now: reading the file, hashing its passwords, checking and writing the rows. */
  phase?: 'reading' | 'hashing' | 'writing';
  /** What the import did, once done. */
  result?: ImportResult;
  /** Why it failed: the message and the problems named as /<row>/<field>. */
  error?: { message: string; errors: { field: string; message: string }[] };
  createdAt: string;
  updatedAt: string;
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

/**
 * The token endpoint's answer when the credentials are proven but a second step stands between
 * them and a session (two-factor, docs/http-contract.md "Sessions"): no session yet, a short-lived
 * challenge token for the second step. `totp`: the user enters a code of the authenticator app or
 * a recovery code; `enrol`: the user must enrol first (the tenant or a role requires two-factor).
 */
export interface SecondStepAnswer {
  code: 200;
  message: 'success';
  second_step: 'totp' | 'enrol';
  challenge_token: string;
  expires_in: number;
}

/** What an authenticator app is given at enrolment: the secret, its otpauth:// address and the QR code. */
export interface TwoFactorSetup {
  secret: string;
  otpauthUrl: string;
  /** The otpauth:// address as a QR code, an SVG document. */
  qrSvg: string;
}

/** A user's two-factor state (个人中心, the administrator's reset screen). */
export interface TwoFactorStatus {
  isEnabled: boolean;
  /** The tenant or one of the user's roles requires two-factor. */
  isRequired: boolean;
  enabledAt: string | null;
  recoveryCodesLeft: number;
}

/** The session opened by an enrolment made during sign-in, with the recovery codes shown once. */
export type EnrolledSignIn = TokenAnswer & { recovery_codes: string[] };

/**
 * PUT /api/account/sysuserdetail/updatePassword's data: the session that replaces the caller's
 * (a password change ends every session of the user, the caller's too).
 */
export type RenewedSession = Omit<TokenAnswer, 'code' | 'message'>;

/** Route metadata stored in sys_menu.menu_meta (docs/product.md §2.3). */
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
  /** Every allowed menu path, nested routes included (docs/product.md §3 "menu-for-user response"). */
  menu: string[];
  /** Buttons the roles may use, by menu code. */
  buttons: Record<string, string[]>;
  /**
   * The fields the roles hide or keep read-only, by menu code (entity name); an entity the roles
   * do not restrict is absent (every field visible and writable).
   */
  fieldRights: Record<string, FieldRights>;
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

/**
 * The fields hidden from one role on one menu's screen, and those it sees but may not change
 * (GET …/sysmenu/queryDataFieldByMenuCode).
 */
export interface DataFieldPermission {
  id: number;
  roleCode: string;
  menuCode: string;
  /** Hidden: left out of every read, refused in every write. */
  dataFields: string[];
  /** Read-only: shown, refused in a write that changes them. */
  readOnlyFields: string[];
}

/** A caller's rights on one entity's fields (CurrentAuthority.fieldRights), the union of their roles. */
export interface FieldRights {
  hidden: string[];
  readOnly: string[];
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
  /** Organisation name (docs/product.md §6). */
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

/** A file as upload and query answer it; size in KB as docs/product.md §3 has it, sizeBytes exact. */
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

/** The whitelisted params of GET /api/notification/home/params: the portal reads them without signing in. */
export interface PortalParams {
  /** The product slug (/ecobid). */
  product: string;
  productTitle?: string;
  /** The product's name in traditional Chinese and English, when the site renamed it. */
  productTitleTw?: string;
  productTitleEn?: string;
  hotline?: string;
  mailbox?: string;
  buyerProgramUrl?: string;
  supplierProgramUrl?: string;
  customerServiceUrl?: string;
  /** The widget's query: names of the visitor's id, name and mobile (src/web/consult.ts). */
  customerServiceParams?: string;
  companyOperator?: string;
  icpRegistration?: string;
  publicSecurityRecord?: string;
}

/** POST …/notice/queryNoticeDetail: a published notice, its attachments and the latest other notices. */
export interface NoticeDetail<Notice> {
  notice: Notice;
  attachments: PortalAttachment[];
  /** Up to 6 other notices, newest first, without their content. */
  latest: Notice[];
}

// The netdisc (/api/file/netdisc).

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

// Designed forms (/api/generator/form).

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
  /** The roles granted the published form's menu (the form list's answer only). */
  menuRoles?: string[];
  createdAt: string;
  createdBy: string | null;
  updatedAt: string | null;
  updatedBy: string | null;
}

export interface FormVersion {
  /** The version row (restore names it). */
  id: number;
  version: number;
  /** restore: a new draft made from an older version's content. */
  action: 'save' | 'publish' | 'unpublish' | 'restore';
  formContent: unknown;
  createdAt: string;
  createdBy: string | null;
}

/**
 * One way a new version of a published form would break rows already in its tables (its own and
 * the child table of each detail field).
 */
export interface ImpactItem {
  /** The field, or `<detail field>.<column>` for a column of a detail row. */
  field: string;
  /** dropped | type | required | unique | a JSON Schema keyword (maxLength, pattern, enum, …) */
  rule: string;
  /** Rows of the table that break the rule (with data in a dropped field, for a drop). */
  rows: number;
  /** The first few of their keys (the parent's key for a detail row). */
  keys: unknown[];
  /** added: a new column (safe); the others are refused when rows > 0, dropped and type always. */
  isSafe: boolean;
  /**
   * required: the field has a default its schema accepts, so 以默认值回填现有记录 (publish with
   * backfill) fills the rows without a value in the publish's transaction.
   */
  canBackfill?: boolean;
}

/** What a new version of a published form would do to its rows: safe when no row breaks it. */
export interface ImpactReport {
  isSafe: boolean;
  items: ImpactItem[];
}

/** POST /api/generator/form/check. */
export interface FormCheck {
  isValid: boolean;
  errors: FieldError[];
  /** Against the table of the form's last publication (absent for a form never published). */
  impact?: ImpactReport;
}

/** POST /api/generator/form/publish. */
export interface PublishAnswer {
  entity: string;
  api: string;
  menuPath: string;
  /** Against the table of the form's last publication (absent for a first publication). */
  impact?: ImpactReport;
}

// The code generator (/api/generator).

/** A file of a generated module (POST /api/generator/forward/preview). */
export interface GeneratedFile {
  path: string;
  content: string;
}

/** A template of the forward generator: the tenant's saved version of an item, or the built-in one. */
export interface TemplateRecord {
  /** Null for a built-in template the tenant has not changed. */
  id: number | null;
  /** backend | frontend | sql */
  templateType: string;
  templateItem: string;
  templateName: string | null;
  content: string;
  version: number;
  isBuiltIn: boolean;
  updatedAt: string | null;
  updatedBy: string | null;
}

export interface TemplateVersion {
  version: number;
  content: string;
  createdAt: string;
  createdBy: string | null;
}

/** A template that does not compile: where (1-based, when handlebars knows it) and why. */
export interface TemplateProblem {
  message: string;
  line?: number;
  column?: number;
}

/** POST /api/generator/template/check. */
export interface TemplateCheck {
  isValid: boolean;
  problems: TemplateProblem[];
  /** The dry run: the template rendered for the sample entity. */
  output?: string;
}

export interface TableColumn {
  columnName: string;
  dataType: string;
  isNullable: boolean;
  columnComment: string | null;
}

/** A draft designed form that adopted a table. */
export interface AdoptingForm {
  formId: number;
  formCode: string;
}

/** A table of the database that is not an entity yet (GET /api/generator/reverse/tables). */
export interface TableSummary {
  tableName: string;
  tableComment: string | null;
  columns: TableColumn[];
  /** The designed form (a draft: published ones are entities) that already adopted the table. */
  adoptedBy?: AdoptingForm;
}

/** POST /api/generator/reverse/adopt: the plan, or (confirmed) the adoption. */
export interface AdoptAnswer {
  formCode: string;
  schema: EntitySchema;
  /** The DDL adopting runs on the table (added columns only; never a type change or a drop). */
  statements: string[];
  /** The tables referring to it adopted as its details (x-detail fields), kept as they are. */
  details: string[];
  /** What adopting proposes, each a choice (the body's fields of the same names). */
  preview: AdoptPreview;
  /** The designed form made, once confirmed. */
  form?: FormRecord;
}

/** A change adopting may make to the other application's table: off unless the admin opts in. */
export interface AdoptChange {
  /** An index name, or a bookkeeping field (createdAt, version …) for a column. */
  name: string;
  /** The DDL it would run. */
  statement: string;
  /** Estimated size on disk in bytes (the table's rows times the entry's width). */
  estimatedBytes: number;
  /**
   * Estimated cost of an insert into the table afterwards, relative to now (1.25: a quarter
   * slower): each index is one more entry written per insert, besides the row and its indexes.
   */
  writeCost: number;
  isChosen: boolean;
}

/** The adoption preview: the table as it is, and each proposal with whether it is chosen. */
export interface AdoptPreview {
  table: { rows: number; bytes: number; indexBytes: number; indexes: number; columns: number };
  /** Tables whose foreign key refers to it: a detail (sub-table) only when chosen. */
  detailCandidates: { table: string; column: string; isChosen: boolean; refusal?: string }[];
  /** Columns holding secrets (x-secret: written only, never read out, listed, filtered or indexed). */
  secrets: { column: string; reason: string; isChosen: boolean }[];
  /** The table's own bookkeeping columns, by the engine's field (createdAt: create_time …). */
  bookkeeping: Partial<Record<'createdAt' | 'createdBy' | 'updatedAt' | 'updatedBy' | 'version', string>>;
  softDelete?: { column: string; deleted: string | number | boolean; active: string | number | boolean };
  /** The table's own tenant column, the value chosen for each of our tenants, and the values in it. */
  tenantColumn?: {
    column: string;
    value?: string | number | boolean;
    byTenant?: Record<string, string | number | boolean>;
    values: { value: string | number | null; rows: number }[];
  };
  /** Columns the engine would add (its bookkeeping the table lacks). */
  columns: AdoptChange[];
  /** The engine's list and lookup indexes. */
  indexes: AdoptChange[];
  /** Why columns were left out or tables are no detail. */
  warnings: string[];
}

// Workflow (/api/activiti). Times are ISO-8601 text as JSON writes them (the server reads them
// from the database as dates).

/** A process model as the model calls answer it (the designer's record). */
export type WfModel = {
  id: number;
  name: string;
  /** The process key (the BPMN process id). */
  key: string;
  category: string | null;
  description: string | null;
  /** The version last deployed from it (0 before the first deployment). */
  version: number;
  /** Counts changes: model/update sends the one it read (409 when it changed meanwhile). */
  revision: number;
  orgId: number | null;
  referGroup: string | null;
  referUsers: string[];
  usedForm: string | null;
  deploymentId: number | null;
  deploymentTime: string | null;
  createTime: string;
  updateTime: string;
  /** Whether a diagram has been saved. */
  hasXml: boolean;
};

/** A model with its saved diagram (model/get; xml null before the first save). */
export type WfModelWithXml = WfModel & {
  xml: string | null;
};

/** A model whose diagram was just stored (model/saveXml), with what the parser warns of. */
export type WfSavedModel = WfModel & {
  warnings: FieldError[];
};

/** A model created or replaced with its diagram (model/import). */
export type WfImportedModel = WfSavedModel & {
  /** The key existed and that model got the diagram. */
  replaced: boolean;
};

/** What a deployment made (model/deploy, deployment/deployXml). */
export type WfDeployAnswer = {
  deploymentId: number;
  /** The file's first executable process (the one a model stands for). */
  processDefinitionId: number;
  key: string;
  version: number;
  /** Every executable process of the file, each the next version of its key, in the file's order. */
  definitions: { processDefinitionId: number; key: string; version: number }[];
  warnings: FieldError[];
};

export type WfDeployment = {
  id: number;
  name: string;
  category: string | null;
  resourceName: string;
  deploymentTime: string;
  deployedBy: string | null;
  warnings: FieldError[];
};

/** A file of a deployment (部署管理's resources): its BPMN file with what it defined. */
export type WfDeploymentResource = {
  deploymentId: number;
  name: string;
  /** Its size in bytes (UTF-8). */
  size: number;
  xml: string;
  /** The process definitions it defined (one version each). */
  definitions: { id: number; key: string; name: string | null; version: number }[];
};

/** One version of a process. */
export type WfDefinition = {
  id: number;
  key: string;
  name: string | null;
  version: number;
  category: string | null;
  resourceName: string;
  deploymentId: number;
  suspended: boolean;
  deploymentTime: string;
  /** The formKey of its start event. */
  startFormKey: string | null;
};

/** What stopped a token at a gateway: the instance shows it until someone deals with it. */
export type WfIncident = {
  activityId: string;
  /** The name of the element where it stopped (older incidents have none). */
  activityName?: string | null;
  flowId: string | null;
  message: string;
  /** The unset variable an expression named, when that stopped it. */
  variable?: string | null;
};

export type WfInstance = {
  id: number;
  name: string | null;
  processDefinitionId: number;
  processDefinitionKey: string;
  processDefinitionVersion: number;
  businessKey: string | null;
  description: string | null;
  /** The starter's user name (null for a timer start). */
  startUserId: string | null;
  startTime: string;
  endTime: string | null;
  suspended: boolean;
  ended: boolean;
  /** running, over, rejected, terminated or withdrawn. */
  status: string;
  incident: WfIncident | null;
};

export type WfTask = {
  id: number;
  name: string | null;
  /** created, assigned, delegated, waiting (for its signers, 加签), completed, canceled, regressed, rejected or terminated. */
  status: string;
  assignee: string | null;
  owner: string | null;
  /** pending while delegated, resolved once handed back. */
  delegationState: string | null;
  claimTime: string | null;
  startTime: string;
  endTime: string | null;
  endReason: string | null;
  description: string | null;
  processInstanceId: number;
  processDefinitionId: number;
  taskDefinitionKey: string;
  formKey: string | null;
  processInstanceName: string | null;
  startUserId: string | null;
  /** Its instance is suspended: the task refuses actions. */
  suspended: boolean;
  /** Its instance's description (流程描述). */
  processDescription: string | null;
  /** Its instance's business key. */
  businessKey: string | null;
  /** 加签: the task this signer was added to. */
  parentTaskId: number | null;
  /** 加签: before or after, while the task waits for its signers. */
  signType: string | null;
};

/** 抄送: an instance copied to the caller. */
export type WfCopy = {
  id: number;
  processInstanceId: number;
  processInstanceName: string | null;
  processDescription: string | null;
  businessKey: string | null;
  startUserId: string | null;
  status: string;
  taskId: number | null;
  taskName: string | null;
  copiedBy: string | null;
  message: string | null;
  time: string;
};

/** A task a start or completion made that the caller can act on now. */
export type WfNextTask = {
  id: number;
  name: string;
  taskDefinitionKey: string;
  assignee: string | null;
};

/** An instance just started (processinstance/start), with the tasks the starter can act on next. */
export type WfStarted = WfInstance & {
  nextTasks: WfNextTask[];
};

/** A task just completed (task/completeTask), with the tasks the caller can act on next. */
export type WfCompleted = WfTask & {
  nextTasks: WfNextTask[];
};

/** The form of a task's formKey: the entity's JSON Schema when the key names one. */
export type WfTaskForm = {
  formKey: string;
  schema: Record<string, unknown> | null;
};

export type WfTaskDetail = WfTask & {
  /** groupNames: each group's role, post or organisation name (its code when it has none), in order. */
  candidates: { users: string[]; groups: string[]; groupNames: string[] };
  form: WfTaskForm | null;
};

/** An activity an instance passed or waits at (history/activityinstance). */
export type WfActivity = {
  id: number;
  /** The BPMN element id. */
  key: string;
  name: string | null;
  type: string;
  assignee: string | null;
  taskId: number | null;
  executionId: number | null;
  startTime: string;
  endTime: string | null;
  endReason: string | null;
  processInstanceId: number;
};

/** A variable of an instance with its last value (history/variableinstance). */
export type WfVariable = {
  id: number;
  name: string;
  /** string, integer, double, boolean, list, object or null. */
  type: string;
  value: unknown;
  updateTime: string;
  processInstanceId: number;
};

/** One change of a variable (history/detail): who set what, where. */
export type WfVariableChange = {
  id: number;
  name: string;
  type: string;
  value: unknown;
  taskId: number | null;
  activityId: string | null;
  username: string | null;
  time: string;
  processInstanceId: number;
};

/** A process variable's name as the workflow API takes it (a JSON Schema pattern; the forms test it too). */
export const PROCESS_VARIABLE_NAME = '^[A-Za-z_][A-Za-z0-9_]{0,63}$';

/** What someone did to an instance or task, with their comment. */
export type WfComment = {
  id: number;
  taskId: number | null;
  username: string | null;
  /** complete, delegate, resolve, transfer, addSignBefore, addSignAfter, copy, regress, reject, terminate, withdraw, assign, suspend, activate, retry or variables (the names set, in message). */
  action: string;
  message: string | null;
  /** Whom the action gave the task to (transfer), added as signers (加签) or copied to (抄送), else null. */
  target: string | null;
  time: string;
};

export type WfInstanceDetail = WfInstance & {
  activities: WfActivity[];
  variables: WfVariable[];
  /** Its open tasks. */
  tasks: WfTask[];
  comments: WfComment[];
  /** The formKey of its start event: the start form, its data among the variables. */
  startFormKey: string | null;
};

/** An instance's BPMN file with its progress (processinstance/diagram). */
export type WfDiagram = {
  processInstanceId: number;
  processDefinitionId: number;
  /** The instance's process: the diagram of the file that draws it is the one shown. */
  processKey: string;
  resourceName: string;
  xml: string;
  /** Activities passed and finished (events, gateways, tasks done). */
  completed: string[];
  /** Activities where the instance waits now (open tasks, joins, incidents). */
  active: string[];
  /** Activities whose last run a rejection (驳回) or a send-back (退回) ended, not run again since. */
  rejected: string[];
  /** Sequence flows the instance went along. */
  flows: string[];
};

/** An earlier user task a task may be sent back to, with its last assignee. */
export type WfRegressNode = {
  activityId: string;
  name: string | null;
  assignee: string | null;
};

/** The caller's open tasks, for the badges. */
export type WfOpenCounts = {
  /** Open tasks assigned to the caller (待办). */
  personal: number;
  /** Open unclaimed tasks the caller is a candidate of (待签收). */
  candidate: number;
};

/** Where a token of an instance stands (processinstance/executions). */
export type WfExecution = {
  id: number;
  activityId: string;
  /** active, joining, incident, loop or scope. */
  state: string;
  parentId: number | null;
  createdAt: string;
  processInstanceId: number;
  /** The activity's name (its id when it has none). */
  name: string;
  /** The messages and signals the token waits for there (POST …/message, …/signal). */
  waitsFor: WfEventWait[];
};

/** A message or signal a token waits for, and the element that catches it. */
export type WfEventWait = {
  kind: 'message' | 'signal';
  name: string;
  activityId: string;
};

/** What a message or signal reached (processinstance/message, processinstance/signal). */
export type WfCorrelated = {
  /** The running instances it reached (a token there went on, or a boundary event fired). */
  processInstanceIds: number[];
  /** The instances it started (message or signal start events). */
  startedInstanceIds: number[];
};

// Monitoring (/api/monitor).

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

/** No sample: the current interval when monitoring is off (MONITORING=off), answered as {}. */
export type NoSample = { [K in keyof MetricSample]?: undefined };

/** One route's figures in one process since it started (p50…p99 of its most recent requests). */
export interface RouteStat {
  route: string;
  method: string;
  count: number;
  errors: number;
  avgMs: number;
  p50: number;
  p95: number;
  p99: number;
  maxMs: number;
}

/** A statement a process timed above the slow threshold (its values are never kept). */
export interface SlowStatement {
  sql: string;
  /** How many values it had ($1=?, $2=?). */
  parameters: string;
  count: number;
  maxMs: number;
  avgMs: number;
  lastAt: string;
  /** The process that timed it (the database page gathers every live process's). */
  instance?: string;
}

/** GET /api/monitor/metrics/samples. */
export interface MetricSamples {
  /** The answering process. */
  instance: string;
  instances: { instance: string; samples: MetricSample[] }[];
  /** The answering process's current interval so far. */
  current: MetricSample | NoSample;
  /** The answering process's routes. */
  routes: RouteStat[];
  /** Every live process's routes (each process publishes its own with its samples). */
  instanceRoutes: { instance: string; at: string; routes: RouteStat[] }[];
}

/** A rate-limit rule with its limit now and what it refused (GET /api/monitor/flowcontrol/rules). */
export interface RateLimitRule {
  name: string;
  param: string;
  /** What the limit counts: perMinute, failures, perDay or seconds. */
  unit: string;
  /** The calls the rule guards. */
  routes: string[];
  limit: number;
  /** Where the limit comes from: a param, or the environment (or its default). */
  source: 'param' | 'environment';
  /** Refusals by this process since it started. */
  rejections: number;
  /** Refusals of every process in the last minute. */
  rejectionsPerMinute: number;
}

/** A live counter of a rate-limit rule (GET /api/monitor/flowcontrol/counters). */
export interface FlowCounter {
  rule: string;
  /** What the counter guards: the route (or route group) for addresses, the tenant for users. */
  scope: string;
  /** Whose: the client's address, the user name of failed sign-ins, the (masked) mobile of SMS codes. */
  key: string;
  hits: number;
  ttlMs: number;
  lockedMs: number;
}

/** A request log row (GET /api/monitor/logs/query). */
export interface RequestLogEntry {
  id: number;
  at: string;
  level: 'info' | 'warn' | 'error';
  instance: string;
  requestId: string;
  tenantCode: string | null;
  userId: number | null;
  username: string | null;
  method: string;
  /** The route pattern, null for a request no route matched. */
  route: string | null;
  path: string;
  status: number;
  durationMs: number;
  /** The error's text when the request failed. */
  message: string | null;
}

/** One changed field of an audit row: what it was and what it became. */
export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** An audit row with its diff (GET /api/monitor/audit/query). */
export interface AuditEntry {
  id: number;
  entity: string;
  recordKey: string;
  action: string;
  userId: number | null;
  username: string | null;
  at: string;
  changes: FieldChange[];
}

/** The database's connection pool (PostgreSQL). */
export interface PoolFigures {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

/** A row of a catalogue view, as the database page lists it (its columns are the view's). */
export type CatalogueRow = Record<string, unknown>;

/** GET /api/monitor/database. */
export interface DatabaseReport {
  kind: 'pglite' | 'postgres';
  /** Sizes and rows of the app's tables. */
  tables: CatalogueRow[];
  /** PostgreSQL only: sessions, index use, locks. */
  activity: CatalogueRow[];
  indexUse: CatalogueRow[];
  locks: CatalogueRow[];
  /** pg_stat_statements' slowest, when the extension is installed; null otherwise. */
  statements: CatalogueRow[] | null;
  /** The statements every live process timed above the threshold, slowest first. */
  slowStatements: SlowStatement[];
  slowThresholdMs: number;
  pool: PoolFigures | null;
}

/** An environment variable the server read, secrets masked. */
export interface ConfigEntry {
  name: string;
  value: string;
  source: 'environment' | 'default';
  isSecret: boolean;
}

/** A monitoring setting (a param of the default tenant). */
export interface MonitorSetting {
  name: string;
  param: string;
  value: number;
  source: 'param' | 'default';
  max: number;
}

/** GET /api/monitor/config. */
export interface MonitorConfig {
  /** The name each known param of the tenant is stored under while nobody renamed it. */
  paramNames: Record<string, string>;
  entries: ConfigEntry[];
  settings: MonitorSetting[];
  instance: string;
  isMonitoringEnabled: boolean;
}

// ---------------------------------------------------------------------------------------------
// Report designer: /api/demo/reportdesigner

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

/** A saved report as the designer reads it: a record of the report entity (schemas/report.schema.json). */
export interface SavedReport extends ReportDefinition {
  id: number;
  version: number;
  reportName: string;
}

/** GET /api/demo/reportdesigner/view: a saved report and its result now. */
export interface ReportWithResult {
  report: SavedReport;
  result: ReportResult;
}

// ---------------------------------------------------------------------------------------------
// Demo charts and big screens: GET /api/demo/dashboard

export interface NamedCount {
  name: string;
  count: number;
}

export interface DayCount {
  /** YYYY-MM-DD in the caller's time zone. */
  day: string;
  count: number;
}

export interface MonthPurchases {
  /** YYYY-MM in the caller's time zone. */
  month: string;
  count: number;
  /** Sum of the budgets (yuan): an exact decimal string. */
  budget: string;
}

export interface CategoryPurchases {
  name: string;
  count: number;
  /** Sum of the budgets (yuan): an exact decimal string. */
  budget: string;
}

export interface RecentPurchase {
  id: number;
  title: string;
  buyerName: string | null;
  region: string | null;
  /** Yuan: an exact decimal string. */
  budget: string | null;
  publishTime: string | null;
}

export interface DashboardTotals {
  users: number;
  activeUsers: number;
  orgs: number;
  notices: number;
  purchases: number;
  /** Sum of the purchases' budgets (yuan): an exact decimal string (numeric sum in SQL). */
  budget: string;
  /** Users with a session that has not ended (signed in now). */
  online: number;
}

/** The figures of one tenant the demo chart pages and big screens show. */
export interface Dashboard {
  totals: DashboardTotals;
  /** Sign-ins and different users per day, oldest first. */
  signIns: { day: string; signIns: number; users: number }[];
  /** Notices published per day, same days as signIns. */
  notices: DayCount[];
  noticesByCategory: NamedCount[];
  /** The last 12 months, oldest first. */
  purchasesByMonth: MonthPurchases[];
  purchasesByCategory: CategoryPurchases[];
  purchasesByRegion: NamedCount[];
  /** Purchases per province (short names, as the big screens' map names them), every region counted. */
  purchasesByProvince: NamedCount[];
  usersByOrg: NamedCount[];
  usersByStatus: NamedCount[];
  recentPurchases: RecentPurchase[];
  generatedAt: string;
}

/** Requests per minute of an API key made without its own rate (the add form's default too). */
export const API_KEY_DEFAULT_RATE_PER_MINUTE = 600;

export type ApiKeyStatus = 'active' | 'expired' | 'revoked';

/** An API key as /api/admin/sysapikey/query answers it: never the key itself or its hash. */
export interface ApiKeyView {
  id: number;
  name: string;
  prefix: string;
  userId: number;
  username: string;
  roles: string[];
  allowList: string[];
  ratePerMinute: number;
  expiresAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
  lastUsedIp: string | null;
  createdBy: string;
  createdAt: string;
  status: ApiKeyStatus;
}

/** One call made with an API key (/api/admin/sysapikey/queryUses). */
export interface ApiKeyUse {
  id: number;
  method: string;
  path: string;
  status: number;
  ip: string | null;
  at: string;
}

/** A webhook as /api/admin/syswebhook/query answers it: never its secret. */
export interface WebhookView {
  id: number;
  name: string;
  url: string;
  /** Event types it hears (lib/events); every type when empty. */
  eventTypes: string[];
  /** Entities it hears; every entity when empty. */
  entities: string[];
  /** A condition in the list filters' vocabulary (the entity list's query parameters); {} for none. */
  condition: Record<string, string | string[]>;
  isEnabled: boolean;
  /** Why it was disabled by the server ('failures'), or null. */
  disabledReason: string | null;
  /** Failed attempts since the last delivered one. */
  failures: number;
  createdBy: string;
  createdAt: string;
}

/** Which claim of an OpenID provider's ID token or user info fills which field of a new user. */
export interface OidcClaimMap {
  username: string;
  nickname: string;
  email: string;
  mobile: string;
}

/** The claims read when a provider names none (the OpenID Connect standard claims). */
export const OIDC_DEFAULT_CLAIMS: OidcClaimMap = {
  username: 'preferred_username',
  nickname: 'name',
  email: 'email',
  mobile: 'phone_number',
};

export const OIDC_DEFAULT_SCOPES = 'openid profile email';

/** An OpenID Connect provider of a tenant as /api/admin/sysoidc/query answers it: never its client secret. */
export interface OidcProviderView {
  id: number;
  name: string;
  issuer: string;
  clientId: string;
  /** Whether a client secret is stored (it is never shown). */
  hasSecret: boolean;
  scopes: string;
  claims: OidcClaimMap;
  newUserRoles: string[];
  newUserOrgId: number | null;
  createUsers: boolean;
  allowPrivateNetwork: boolean;
  enabled: boolean;
  sequence: number;
  createdBy: string;
  createdAt: string;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One delivery of an event to a webhook (/api/admin/syswebhook/queryDeliveries). */
export interface WebhookDelivery {
  id: number;
  eventId: number;
  eventType: string;
  entity: string | null;
  recordKey: string | null;
  status: WebhookDeliveryStatus;
  attempts: number;
  nextAt: string;
  lastAt: string | null;
  lastStatus: number | null;
  lastAnswer: string | null;
  lastError: string | null;
  createdAt: string;
}

/** A provider as the sign-in pages list it. */
export interface OidcProviderButton {
  id: number;
  name: string;
}

/** A provider as 个人中心 lists it: linked to the signed-in user or not. */
export interface OidcLinkView {
  providerId: number;
  name: string;
  isLinked: boolean;
  linkedAt: string | null;
}

/**
 * The business record an instance approves (x-entity.workflow; GET /api/activiti/processinstance/record):
 * read through the caller's field rights and row scope, with the fields the caller's open task may edit.
 */
export interface WfApprovedRecord {
  /** The entity the record belongs to. */
  entity: string;
  key: number | string;
  record: Record<string, unknown>;
  /** The caller's open task of the instance while the record is under approval, else null. */
  taskId: number | null;
  /** The fields that task may edit (x-entity.workflow.edit), less those the caller may not write. */
  editable: string[];
}
