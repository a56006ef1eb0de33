import type { EntityDef } from '../../engine/index.js';
import type { AppContext } from '../lib/context.js';
import {
  answer,
  flag,
  id,
  ids,
  integer,
  integerOrText,
  MAX_KEY,
  object,
  optionalInteger,
  PUBLIC_SECURITY,
  separatedIds,
  text,
  textOrNumber,
  type RouteSchema,
} from '../lib/route-schema.js';

type Json = Record<string, unknown>;
type Manifest = Map<string, RouteSchema>;

/**
 * The schema of every route of the API, by "METHOD /url", written here module by module (the
 * tag is the module). A route file may declare its schema itself (the generated entity routes
 * do); the manifest is the fallback, and a route in neither place fails the document test
 * (tests/integration/openapi.test.ts).
 */
export function routeSchemaManifest(ctx: AppContext): Manifest {
  const manifest: Manifest = new Map();
  const put = (method: string, url: string, schema: RouteSchema): void => {
    manifest.set(`${method} ${url}`, schema);
  };
  authSchemas(put);
  accountSchemas(put);
  rbacSchemas(ctx, put);
  return manifest;
}

type Put = (method: string, url: string, schema: RouteSchema) => void;

const api = (entity: EntityDef | undefined, name: string): string =>
  entity ? `/api/${entity.api}/${name}` : '';

// Auth ------------------------------------------------------------------------------------------

/** Token parameters come in the query string or a form body, as OAuth2 clients send them. */
const TOKEN_PARAMS = object({
  grant_type: text(32, {
    enum: ['password', 'mobile', 'refresh_token'],
    description: 'password | mobile | refresh_token',
  }),
  username: text(128, { examples: ['admin'] }),
  password: text(256),
  mobile: text(32),
  smsCaptcha: text(16),
  refresh_token: text(256),
  scope: text(64, { examples: ['server'] }),
  client_id: text(64, { examples: ['browser'] }),
  tenantCode: text(64, { examples: ['default'] }),
  type: text(32),
});

function authSchemas(put: Put): void {
  const tags = ['auth'];
  put('POST', '/api/uaa/oauth/token', {
    tags,
    summary: 'Sign in: an access and a refresh token (OAuth2 password, mobile or refresh_token grant)',
    security: [{ clientBasic: [] }],
    querystring: TOKEN_PARAMS,
    body: TOKEN_PARAMS,
    consumes: ['application/x-www-form-urlencoded', 'application/json'],
    response: {
      200: object({
        code: { type: 'integer', enum: [200] },
        access_token: { type: 'string' },
        token_type: { type: 'string', enum: ['bearer'] },
        refresh_token: { type: 'string' },
        expires_in: { type: 'integer' },
        scope: { type: 'string' },
        message: { type: 'string', enum: ['success'] },
      }),
    },
  });
  put('POST', '/api/uaa/oauth/logout', {
    tags,
    summary: 'Sign out: revokes the bearer token',
    response: answer(),
  });
  for (const name of ['getSysUser', 'getBidUser']) {
    put('GET', `/api/uaa/users/${name}`, { tags, summary: 'The signed-in user', response: answer() });
  }
}

// Accounts --------------------------------------------------------------------------------------

/** Account calls read the query string and a JSON or form body together (lib/input.ts). */
const ACCOUNT_FIELDS: Record<string, Json> = {
  username: textOrNumber(128),
  password: textOrNumber(256),
  newPassword: textOrNumber(256),
  confirmPassword: textOrNumber(256),
  mobile: textOrNumber(32),
  countryCode: textOrNumber(8),
  phone: textOrNumber(32),
  email: textOrNumber(256),
  smsCaptcha: textOrNumber(16),
  charCaptcha: textOrNumber(16),
  captchaId: textOrNumber(128),
  code: textOrNumber(128),
  nickname: textOrNumber(128),
  companyName: textOrNumber(256),
  orgName: textOrNumber(256),
  tenantCode: textOrNumber(64),
  userType: textOrNumber(8),
  type: textOrNumber(32),
};

const accountInput = (...names: string[]): { querystring: Json; body: Json; consumes: string[] } => {
  const properties = Object.fromEntries(names.map((name) => [name, ACCOUNT_FIELDS[name] ?? textOrNumber()]));
  return {
    querystring: object(properties),
    body: object(properties),
    consumes: ['application/json', 'application/x-www-form-urlencoded'],
  };
};

function accountSchemas(put: Put): void {
  const tags = ['account'];
  const detail = '/api/account/sysuserdetail';
  put('GET', '/api/account/captcha/getCharCaptcha', {
    tags,
    summary: 'A character captcha image and its id',
    security: PUBLIC_SECURITY,
    response: answer(),
  });
  put('POST', `${detail}/compareCaptcha`, {
    tags,
    summary: 'Checks a character captcha once',
    ...accountInput('captchaId', 'charCaptcha'),
    response: answer({ type: 'boolean' }),
  });
  for (const method of ['GET', 'POST']) {
    put(method, '/api/account/captcha/getSmsCaptcha', {
      tags,
      summary: 'Sends an SMS code to a mobile number',
      ...(method === 'GET'
        ? {
            querystring: object({
              mobile: ACCOUNT_FIELDS.mobile ?? {},
              tenantCode: ACCOUNT_FIELDS.tenantCode ?? {},
              captchaId: ACCOUNT_FIELDS.captchaId ?? {},
              charCaptcha: ACCOUNT_FIELDS.charCaptcha ?? {},
            }),
          }
        : accountInput('mobile', 'tenantCode', 'captchaId', 'charCaptcha')),
      response: answer(),
    });
  }
  for (const name of ['registerAccount', 'register']) {
    put('POST', `${detail}/${name}`, {
      tags,
      summary: 'Registers a buyer or supplier with their organisation',
      ...accountInput(
        'username',
        'password',
        'confirmPassword',
        'mobile',
        'smsCaptcha',
        'nickname',
        'email',
        'countryCode',
        'phone',
        'companyName',
        'orgName',
        'userType',
        'type',
        'tenantCode',
        'captchaId',
        'charCaptcha',
      ),
      response: answer(),
    });
  }
  put('POST', `${detail}/queryCompanyName`, {
    tags,
    summary: 'Is an organisation name taken in the tenant?',
    ...accountInput('companyName', 'orgName', 'tenantCode'),
    response: answer(object({ companyName: { type: 'string' }, isTaken: { type: 'boolean' } })),
  });
  put('POST', `${detail}/retrievePassword`, {
    tags,
    summary: 'Mails a password-reset code',
    ...accountInput('email', 'tenantCode', 'captchaId', 'charCaptcha'),
    response: answer(),
  });
  put('POST', `${detail}/resetPassword`, {
    tags,
    summary: 'Sets a new password with a mailed code',
    ...accountInput('code', 'newPassword', 'password', 'confirmPassword', 'tenantCode'),
    response: answer(),
  });
  put('POST', `${detail}/checkMobileAndSms`, {
    tags,
    summary: 'Checks an SMS code of a registered mobile number',
    ...accountInput('mobile', 'smsCaptcha', 'tenantCode'),
    response: answer(),
  });
  put('POST', `${detail}/editPassword`, {
    tags,
    summary: 'Sets a new password with an SMS code',
    ...accountInput('mobile', 'smsCaptcha', 'newPassword', 'password', 'confirmPassword', 'tenantCode'),
    response: answer(),
  });
  put('GET', `${detail}/querySysUserDetail`, {
    tags,
    summary: "The caller's own record",
    response: answer(),
  });
  put('PUT', `${detail}/updateSysUserDetail`, {
    tags,
    summary: 'The caller edits their own profile (a new mobile needs its SMS code)',
    body: object(
      {
        // The caller's own key, checked (403 for another one), never written; a form may send its digits.
        id: { ...integerOrText(0, MAX_KEY), type: ['integer', 'string', 'null'] },
      },
      [],
      { description: 'Fields of the user form the caller may edit, id and version' },
    ),
    response: answer(),
  });
  put('POST', `${detail}/queryCurrentAuthority`, {
    tags,
    summary: "The caller's menus, paths and buttons",
    querystring: object({
      parentId: optionalInteger(0, MAX_KEY, { description: 'narrows the tree to one top-level menu' }),
      userId: optionalInteger(0, MAX_KEY, { description: "the caller's own id" }),
      username: text(128, { description: "the caller's own user name" }),
      postCode: text(64, { description: "narrows to the roles of one of the caller's posts" }),
    }),
    response: answer(),
  });
  put('POST', `${detail}/queryRoleInfo`, {
    tags,
    summary: 'Roles of the session and those acted in now',
    response: answer(),
  });
  put('PUT', `${detail}/updatePassword`, {
    tags,
    summary: "Changes the caller's own password; every other session of the user ends",
    querystring: object({
      password: text(256),
      newPassword: text(256),
      // another user's id is refused with 403, a negative one too
      id: optionalInteger(-MAX_KEY, MAX_KEY, { description: "the caller's own id" }),
    }),
    response: answer(),
  });
  put('GET', `${detail}/queryPostOptions`, {
    tags,
    summary: 'The posts the caller holds, main post first',
    response: answer(),
  });

  const users = ['sysuser'];
  put('GET', '/api/admin/sysuser/querySignInsPerDay', {
    tags: users,
    summary: "Sign-ins per day of the caller's tenant",
    querystring: object({
      days: integer(1, 92, { description: 'how many days (default 14)' }),
      // time-zone offsets run from -12:00 to +14:00
      utcOffset: integer(-12 * 60, 14 * 60, {
        description: 'minutes east of UTC of the caller (480 in China)',
      }),
    }),
    response: answer(),
  });
  put('POST', '/api/admin/sysuser/registerNewSession', {
    tags: users,
    summary: "The caller's session announces itself",
    response: answer(),
  });
  put('GET', '/api/admin/sysuser/queryOnlineSysUser', {
    tags: users,
    summary: 'Live sessions of the tenant (ROLE_ADMIN)',
    querystring: object({
      currentPage: integer(1, 1_000_000),
      pageSize: integer(1, 500),
      username: text(128, { description: 'contains' }),
    }),
    response: answer(),
  });
  put('POST', '/api/admin/sysuser/forceLogout', {
    tags: users,
    summary: 'Ends sessions by id or every session of users (ROLE_ADMIN)',
    querystring: object({ id: separatedIds(1000, 'session ids'), userId: separatedIds(1000, 'user ids') }),
    response: answer(object({ revoked: { type: 'integer' } })),
  });
  put('GET', '/api/admin/sysuser/queryUsername', {
    tags: users,
    summary: "Is a user name taken in the caller's tenant?",
    querystring: object({ username: text(128) }, ['username']),
    response: answer(object({ username: { type: 'string' }, isTaken: { type: 'boolean' } })),
  });
}

// Authorization ---------------------------------------------------------------------------------

function rbacSchemas(ctx: AppContext, put: Put): void {
  const { registry } = ctx;
  const role = registry.get('sysrole');
  const url = registry.get('sysurl');
  const menu = registry.get('sysmenu');
  const post = registry.get('syspost');
  const org = registry.get('sysorg');
  const userPost = registry.get('sysuserpost');

  const link = (
    entity: EntityDef | undefined,
    queryName: string,
    param: string,
    authorizeName: string,
    idField: string,
    idsField: string,
    minItems: number,
  ): void => {
    if (!entity) return;
    const tags = [entity.name];
    put('GET', api(entity, queryName), {
      tags,
      summary: `Ids linked to one ${param}`,
      querystring: object({ [param]: id() }, [param]),
      response: answer({ type: 'array', items: { type: 'integer' } }),
    });
    put('POST', api(entity, authorizeName), {
      tags,
      summary: `Replaces the ${idsField} of one ${idField}`,
      body: object(
        {
          [idField]: id(),
          [idsField]: { ...ids(10_000), uniqueItems: true, minItems },
        },
        [idField, idsField],
        { additionalProperties: false },
      ),
      response: answer(),
    });
  };
  link(role, 'queryRoleIdByUserId', 'userId', 'authorizeRoleToUser', 'userId', 'roleIds', 0);
  link(role, 'queryUserIdByRoleId', 'roleId', 'authorizeUserToRole', 'roleId', 'userIds', 1);
  link(url, 'queryRoleIdByUrlId', 'urlId', 'authorizeRoleToUrl', 'urlId', 'roleIds', 0);
  link(url, 'queryUrlIdByRoleId', 'roleId', 'authorizeUrlToRole', 'roleId', 'urlIds', 0);
  link(menu, 'queryMenuIdByRoleId', 'roleId', 'authorizeMenuToRole', 'roleId', 'menuIds', 1);
  link(post, 'queryRoleIdByPostId', 'postId', 'authorizeRoleToPost', 'postId', 'roleIds', 0);

  if (role) {
    const roles = {
      tags: [role.name],
      summary: 'Roles of the tenant, checked when the user or post holds them',
      querystring: object({
        userId: id(),
        postCode: text(64),
        assign: flag('true: the checked ones only'),
      }),
      response: answer(),
    };
    for (const name of ['queryRoleName', 'queryRoleNameCheckbox', 'queryRoleCode'])
      put('GET', api(role, name), roles);
  }
  if (menu) {
    const tags = [menu.name];
    put('GET', api(menu, 'querySysMenuButtonTree'), {
      tags,
      summary: 'Menus with their buttons',
      response: answer(),
    });
    put('GET', api(menu, 'queryCheckedMenuButton'), {
      tags,
      summary: 'The buttons of one menu',
      querystring: object({ menuCode: text(64, { minLength: 1 }) }, ['menuCode']),
      response: answer(),
    });
    put('GET', api(menu, 'queryMenuButtonByRoleCode'), {
      tags,
      summary: 'Buttons granted to a role (menuCode:button)',
      querystring: object({ roleCode: text(64, { minLength: 1 }) }, ['roleCode']),
      response: answer({ type: 'array', items: { type: 'string' } }),
    });
    put('POST', api(menu, 'authorizeMenuButtonToRole'), {
      tags,
      summary: 'Replaces the buttons granted to a role',
      body: object(
        {
          roleCode: text(64, { minLength: 1 }),
          buttons: {
            type: 'array',
            items: text(200, { pattern: '^[^:\\u0000]+:[^:\\u0000]+$' }),
            uniqueItems: true,
            maxItems: 10_000,
          },
        },
        ['roleCode', 'buttons'],
        { additionalProperties: false },
      ),
      response: answer(),
    });
    put('GET', api(menu, 'queryDataFieldByMenuCode'), {
      tags,
      summary: 'Data fields hidden per role on one menu',
      querystring: object({ menuCode: text(64, { minLength: 1 }) }, ['menuCode']),
      response: answer(),
    });
    put('POST', api(menu, 'authorizeMenuDataToRole'), {
      tags,
      summary: 'Replaces the hidden data fields of one menu',
      body: object(
        {
          menuCode: text(64, { minLength: 1 }),
          rows: {
            type: 'array',
            maxItems: 1000,
            items: object(
              {
                roleCode: text(64, { minLength: 1 }),
                dataFields: {
                  type: 'array',
                  items: { type: 'string', pattern: '^[a-z][a-zA-Z0-9]*$', maxLength: 64 },
                  uniqueItems: true,
                  maxItems: 1000,
                },
              },
              ['roleCode', 'dataFields'],
              { additionalProperties: false },
            ),
          },
        },
        ['menuCode', 'rows'],
        { additionalProperties: false },
      ),
      response: answer(),
    });
    put('POST', api(menu, 'deleteDataField'), {
      tags,
      summary: 'Deletes one data-field row',
      querystring: object({ id: id() }, ['id']),
      response: answer(object({ deleted: { type: 'integer' } })),
    });
  }
  if (org) {
    const tags = [org.name];
    put('GET', api(org, 'queryOrgUserTree'), {
      tags,
      summary: 'Organisations with their users; with roleId the holders are checked',
      querystring: object({ roleId: id(), assign: flag() }),
      response: answer(),
    });
    put('GET', api(org, 'queryModelOrgUserTree'), {
      tags,
      summary: "Organisations with their users, for a workflow model's candidates",
      querystring: object({ modelId: text(64), assign: flag() }),
      response: answer(),
    });
  }
  if (userPost) {
    const tags = [userPost.name];
    put('GET', api(userPost, 'querySysUserPostTree'), {
      tags,
      summary: "The post tree with the user's posts marked",
      querystring: object({ userId: id() }, ['userId']),
      response: answer(),
    });
    put('POST', api(userPost, 'authorizePostToUser'), {
      tags,
      summary: "Replaces the user's posts",
      body: object(
        {
          userId: id(),
          posts: {
            type: 'array',
            maxItems: 1000,
            items: object(
              { postId: id(), postType: text(32), postDescription: text(1000) },
              ['postId', 'postType'],
              {
                additionalProperties: false,
              },
            ),
          },
        },
        ['userId', 'posts'],
        { additionalProperties: false },
      ),
      response: answer(),
    });
  }
}
