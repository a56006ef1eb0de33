/**
 * The tenant wall (issue 30): one tenant's administrator never reaches another tenant's designed
 * forms, nor the platform (database tables, site-wide settings, the platform's figures). Two
 * tenants are provisioned as the platform administrator provisions them; each finding of the
 * issue has its test here, run on PGlite and (TEST_DATABASE_URL) on PostgreSQL.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncFormMenus } from '../../src/server/features/forms/menus.js';
import { syncEntityMenus } from '../../src/server/features/tenants/seed.js';
import { adminBootstrap } from '../../src/server/features/web/services/admin-bootstrap.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { signedInTenantAdmin } from '../support/users.js';

type Json = Record<string, unknown>;
/** The catalogue's platformOnly message in the default language (locales/zh.json errors.platformOnly). */
const PLATFORM_ONLY = '只有平台管理员可以执行此操作';
type Headers = { authorization: string };

let t: TestApp;
/** The administrators of tenant A (alpha) and tenant B (beta); neither is the platform's. */
let alpha: Headers;
let beta: Headers;

const dataOf = <T = Json>(response: LightMyRequestResponse): T => (response.json() as Json).data as T;
const errorsOf = (response: LightMyRequestResponse): { field: string; message: string }[] =>
  ((response.json() as Json).errors as { field: string; message: string }[] | undefined) ?? [];

const call = (headers: Headers, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
  t.request({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as Json }) });

const visitForm = (extra: Json = {}): Json => ({
  title: 'Site visit',
  type: 'object',
  required: ['place'],
  properties: {
    place: { type: 'string', title: 'Place', maxLength: 80 },
    hours: { type: 'integer', title: 'Hours', minimum: 1 },
  },
  ...extra,
});

/** The stored form of alpha, read by alpha (what alpha would check after beta's attempts). */
async function alphasForm(id: number): Promise<Json | undefined> {
  const listed = await call(alpha, 'GET', `/api/generator/form/query?id=${id}`);
  expect(listed.statusCode, listed.body).toBe(200);
  return dataOf<{ records: Json[] }>(listed).records[0];
}

const sidebarOf = async (headers: Headers): Promise<string[]> => {
  const answer = await call(headers, 'POST', '/api/account/sysuserdetail/queryCurrentAuthority');
  expect(answer.statusCode, answer.body).toBe(200);
  return dataOf<{ menu: string[] }>(answer).menu;
};

let formId = 0;

beforeAll(async () => {
  t = await startTestApp();
  alpha = await signedInTenantAdmin(t, 'alpha');
  beta = await signedInTenantAdmin(t, 'beta');
  // Alpha's administrator designs and publishes a form of its own, with one row.
  const added = await call(alpha, 'POST', '/api/generator/form/add', {
    formCode: 'alphavisit',
    formName: 'Alpha visits',
    formContent: visitForm(),
  });
  expect(added.statusCode, added.body).toBe(200);
  formId = dataOf<{ id: number }>(added).id;
  const published = await call(alpha, 'POST', '/api/generator/form/publish', {
    id: formId,
    menuParent: 'formgenerator',
    roles: ['ROLE_SYS_BUYER'],
  });
  expect(published.statusCode, published.body).toBe(200);
  const row = await call(alpha, 'POST', '/api/online/alphavisit/add', { place: 'Alpha plant', hours: 2 });
  expect(row.statusCode, row.body).toBe(200);
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('finding 1: another tenant designed forms', () => {
  it('are neither listed nor read, changed, published, unpublished or deleted by another tenant (404)', async () => {
    const listed = await call(beta, 'GET', '/api/generator/form/query?pageSize=100');
    expect(listed.statusCode, listed.body).toBe(200);
    expect(dataOf<{ records: Json[] }>(listed).records.map((form) => form.formCode)).not.toContain(
      'alphavisit',
    );
    const byId = await call(beta, 'GET', `/api/generator/form/query?id=${formId}`);
    expect(dataOf<{ total: number }>(byId).total).toBe(0);

    const before = await alphasForm(formId);
    const attempts: [string, LightMyRequestResponse][] = [
      ['versions', await call(beta, 'GET', `/api/generator/form/versions?id=${formId}`)],
      [
        'update',
        await call(beta, 'PUT', '/api/generator/form/update', {
          id: formId,
          version: before?.version,
          formName: 'Taken over',
        }),
      ],
      [
        'publish',
        await call(beta, 'POST', '/api/generator/form/publish', {
          id: formId,
          menuParent: 'formgenerator',
          roles: ['ROLE_SYS_BUYER'],
        }),
      ],
      ['unpublish', await call(beta, 'POST', `/api/generator/form/unpublish?id=${formId}`)],
      ['delete', await call(beta, 'POST', `/api/generator/form/delete?id=${formId}`)],
      [
        'check',
        await call(beta, 'POST', '/api/generator/form/check', { id: formId, formContent: visitForm() }),
      ],
    ];
    expect(attempts.map(([name, answer]) => [name, answer.statusCode])).toEqual(
      attempts.map(([name]) => [name, 404]),
    );
    // Nothing changed: alpha's form, its API and its rows are as they were.
    expect(await alphasForm(formId)).toEqual(before);
    expect(before).toMatchObject({ formName: 'Alpha visits', status: 'published' });
    const rows = await call(alpha, 'GET', '/api/online/alphavisit/query');
    expect(rows.statusCode, rows.body).toBe(200);
    expect(dataOf<{ records: Json[] }>(rows).records.map((row) => row.place)).toEqual(['Alpha plant']);
  });
});

describe('finding 2: forms reading beyond their tenant', () => {
  it('refuses x-entity.tenant false and adopt to a tenant administrator, naming the field (403)', async () => {
    const shared = visitForm({ 'x-entity': { table: 'beta_visits', tenant: false } });
    const checked = await call(beta, 'POST', '/api/generator/form/check', {
      formCode: 'betashared',
      formContent: shared,
    });
    expect(checked.statusCode, checked.body).toBe(403);
    expect((checked.json() as Json).message).toBe(PLATFORM_ONLY);
    expect(errorsOf(checked).map((error) => error.field)).toEqual(['/formContent/x-entity/tenant']);
    const adopting = await call(beta, 'POST', '/api/generator/form/check', {
      formCode: 'betaadopt',
      formContent: visitForm({ 'x-entity': { table: 'beta_legacy', adopt: true } }),
    });
    expect(adopting.statusCode, adopting.body).toBe(403);
    expect(errorsOf(adopting).map((error) => error.field)).toEqual(['/formContent/x-entity/adopt']);
    const added = await call(beta, 'POST', '/api/generator/form/add', {
      formCode: 'betashared',
      formName: 'Shared',
      formContent: shared,
    });
    expect(added.statusCode, added.body).toBe(403);
    expect(await t.sql("select 1 from sys_form where form_code = 'betashared'")).toEqual([]);
    // The platform administrator may.
    const platform = await call(t.auth, 'POST', '/api/generator/form/check', {
      formCode: 'platformshared',
      formContent: visitForm({ 'x-entity': { table: 'platform_visits', tenant: false } }),
    });
    expect(platform.statusCode, platform.body).toBe(200);
  });

  it("refuses a form over another tenant's form table (400 naming /x-entity/table)", async () => {
    const content = visitForm({ 'x-entity': { table: 'online_alphavisit' } });
    const checked = await call(beta, 'POST', '/api/generator/form/check', {
      formCode: 'betavisit',
      formContent: content,
    });
    expect(checked.statusCode, checked.body).toBe(400);
    expect(errorsOf(checked).map((error) => error.field)).toEqual(['/formContent/x-entity/table']);
    // Stored as a draft, it still cannot be published over alpha's table, whose rows stay alpha's.
    const added = await call(beta, 'POST', '/api/generator/form/add', {
      formCode: 'betavisit',
      formName: 'Beta visits',
      formContent: content,
    });
    expect(added.statusCode, added.body).toBe(200);
    const published = await call(beta, 'POST', '/api/generator/form/publish', {
      id: dataOf<{ id: number }>(added).id,
      menuParent: 'formgenerator',
      roles: ['ROLE_SYS_BUYER'],
    });
    expect(published.statusCode, published.body).toBe(400);
    expect(errorsOf(published).map((error) => error.field)).toEqual(['/formContent/x-entity/table']);
    expect((await call(beta, 'GET', '/api/online/betavisit/query')).statusCode).toBe(404);
  });
});

describe('finding 3: the tables of the database', () => {
  it('are neither listed, reversed nor adopted by a tenant administrator (403 platformOnly)', async () => {
    await t.sql('create table beta_probe (id integer primary key, secret text)');
    const answers = [
      await call(beta, 'GET', '/api/generator/reverse/tables'),
      await call(beta, 'POST', '/api/generator/reverse/schema?tableName=beta_probe'),
      await call(beta, 'POST', '/api/generator/reverse/adopt', { tableName: 'beta_probe', confirm: true }),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([403, 403, 403]);
    for (const answer of answers) expect((answer.json() as Json).message).toBe(PLATFORM_ONLY);
    // Nothing was altered: the table has its two columns, and no form adopted it.
    const columns = await t.sql<{ column_name: string }>(
      `select column_name from information_schema.columns
       where table_schema = current_schema() and table_name = 'beta_probe' order by column_name`,
    );
    expect(columns.map((row) => row.column_name)).toEqual(['id', 'secret']);
    expect(await t.sql("select 1 from sys_form where form_code = 'betaprobe'")).toEqual([]);
    // Nor taken over by a form of its own naming it (only adopting, the platform's, takes a table).
    const overProbe = await call(beta, 'POST', '/api/generator/form/check', {
      formCode: 'betaprobe',
      formContent: visitForm({ 'x-entity': { table: 'beta_probe' } }),
    });
    expect(overProbe.statusCode, overProbe.body).toBe(400);
    expect(errorsOf(overProbe).map((error) => error.field)).toEqual(['/formContent/x-entity/table']);
    // The platform administrator still reads them.
    const tables = await call(t.auth, 'GET', '/api/generator/reverse/tables');
    expect(tables.statusCode, tables.body).toBe(200);
    expect(dataOf<{ tableName: string }[]>(tables).map((table) => table.tableName)).toContain('beta_probe');
  });
});

describe('finding 4: site-wide settings', () => {
  it('are not changed by a tenant administrator: flow-control rules and monitor settings (403)', async () => {
    const rulesBefore = await call(t.auth, 'GET', '/api/monitor/flowcontrol/rules');
    expect(rulesBefore.statusCode, rulesBefore.body).toBe(200);
    const rule = await call(beta, 'PUT', '/api/monitor/flowcontrol/rule', { name: 'captcha', limit: 2 });
    expect(rule.statusCode, rule.body).toBe(403);
    const setting = await call(beta, 'PUT', '/api/monitor/settings', { name: 'slowQueryMs', value: 1 });
    expect(setting.statusCode, setting.body).toBe(403);
    expect((await call(beta, 'GET', '/api/monitor/flowcontrol/rules')).statusCode).toBe(403);
    // The platform's values are as they were.
    const rulesAfter = await call(t.auth, 'GET', '/api/monitor/flowcontrol/rules');
    expect(dataOf(rulesAfter)).toEqual(dataOf(rulesBefore));
    const config = await call(t.auth, 'GET', '/api/monitor/config');
    const slow = dataOf<{ settings: { name: string; source: string }[] }>(config).settings.find(
      (entry) => entry.name === 'slowQueryMs',
    );
    expect(slow?.source).toBe('default');
  });
});

describe('finding 5: the platform and the other tenants seen from a tenant', () => {
  it("shows a published form's menu in its own tenant's sidebar only", async () => {
    expect(await sidebarOf(alpha)).toContain('/online/alphavisit');
    expect(await sidebarOf(beta)).not.toContain('/online/alphavisit');
    expect(await sidebarOf(t.auth)).not.toContain('/online/alphavisit');
  });

  it("shows the platform's pages in the platform administrator's sidebar only", async () => {
    const platformPages = [
      '/codegenerator/reversegenerator',
      '/monitor/flowcontrol',
      '/monitor/configcenter',
      '/monitor/database',
      '/monitor/metrics',
      '/tenant/systenant',
    ];
    const own = await sidebarOf(t.auth);
    expect(platformPages.filter((path) => own.includes(path))).toEqual(platformPages);
    const tenants = await sidebarOf(beta);
    expect(platformPages.filter((path) => tenants.includes(path))).toEqual([]);
    expect(tenants).toEqual(expect.arrayContaining(['/sysuser', '/sysrole', '/monitor/apidoc']));
    // A database seeded before the pages were marked gets the mark at start.
    await t.sql(`update sys_menu set menu_meta = menu_meta - 'platform' where menu_code = 'dbmonitor'`);
    expect(await sidebarOf(beta)).toContain('/monitor/database');
    await syncEntityMenus(t.app.ctx, t.app.i18n);
    expect(await sidebarOf(beta)).not.toContain('/monitor/database');
  });

  it('gives the menu of a form published before menus named their tenant its tenant at start', async () => {
    await t.sql(`update sys_menu set menu_meta = '{}'::jsonb where menu_code = 'online_alphavisit'`);
    expect(await sidebarOf(beta)).toContain('/online/alphavisit');
    await syncFormMenus(t.app.ctx, t.app.i18n);
    expect(await t.sql(`select menu_meta from sys_menu where menu_code = 'online_alphavisit'`)).toEqual([
      { menu_meta: { tenant: 'alpha' } },
    ]);
    expect(await sidebarOf(beta)).not.toContain('/online/alphavisit');
    expect(await sidebarOf(alpha)).toContain('/online/alphavisit');
  });

  it("answers 404 for another tenant's published form, and the generator does not know it", async () => {
    for (const url of ['/api/online/alphavisit/query', '/api/online/alphavisit/add']) {
      const answer = url.endsWith('add')
        ? await call(beta, 'POST', url, { place: 'Beta was here' })
        : await call(beta, 'GET', url);
      expect([url, answer.statusCode]).toEqual([url, 404]);
    }
    const preview = await call(beta, 'POST', '/api/generator/forward/preview', {
      entities: ['alphavisit'],
      serviceName: 'probe',
      packageName: 'probe',
    });
    expect(preview.statusCode, preview.body).toBe(400);
    expect(preview.body).not.toContain('Alpha plant');
    expect(errorsOf(preview).map((error) => error.field)).toEqual(['/entities/0']);
    const sample = await call(beta, 'POST', '/api/generator/template/check', {
      content: '{{pascal}} {{table}}',
      sampleEntity: 'alphavisit',
    });
    expect(sample.statusCode, sample.body).toBe(400);
    expect(errorsOf(sample).map((error) => error.field)).toEqual(['/sampleEntity']);
    // Alpha's rows are only alpha's.
    const rows = await call(alpha, 'GET', '/api/online/alphavisit/query');
    expect(dataOf<{ total: number }>(rows).total).toBe(1);
    const own = await call(alpha, 'POST', '/api/generator/forward/preview', {
      entities: ['alphavisit'],
      serviceName: 'visits',
      packageName: 'visits',
    });
    expect(own.statusCode, own.body).toBe(200);
  });

  it("keeps the platform's figures from a tenant administrator (403 platformOnly)", async () => {
    const urls = [
      '/api/monitor/database',
      '/api/monitor/metrics/samples',
      '/api/monitor/config',
      '/api/metrics',
    ];
    const statuses = await Promise.all(
      urls.map(async (url) => [url, (await call(beta, 'GET', url)).statusCode]),
    );
    expect(statuses).toEqual(urls.map((url) => [url, 403]));
    for (const url of urls.slice(0, 3))
      expect([url, (await call(t.auth, 'GET', url)).statusCode]).toEqual([url, 200]);
  });

  it("lists a published form's schema and validators to its own tenant only, none to anyone signed out", async () => {
    const tokenOf = (headers: Headers): string => headers.authorization.replace('Bearer ', '');
    /** What a caller gets: the schemas' entity names, the validators module, the page's bootstrap. */
    const seenBy = async (headers: Headers | undefined) => {
      const schemas = await t.app.inject({ method: 'GET', url: '/api/schemas', headers: headers ?? {} });
      expect(schemas.statusCode, schemas.body).toBe(200);
      expect(schemas.headers.vary).toMatch(/authorization/i);
      const validators = await t.app.inject({
        method: 'GET',
        url: '/api/schemas/validators.js',
        headers: headers ?? {},
      });
      expect(validators.statusCode, validators.body).toBe(200);
      expect(validators.headers.vary).toMatch(/authorization/i);
      const bootstrap = headers
        ? await adminBootstrap({ ctx: t.app.ctx, token: tokenOf(headers) })
        : undefined;
      return {
        names: dataOf<{ entities: { name: string }[] }>(schemas).entities.map((entity) => entity.name),
        schemasTag: String(schemas.headers.etag),
        validators: validators.body,
        validatorsTag: String(validators.headers.etag),
        bootstrapNames: bootstrap?.schemas.entities.map((entity) => entity.name),
      };
    };
    const [ofAlpha, ofBeta, ofNobody] = [await seenBy(alpha), await seenBy(beta), await seenBy(undefined)];

    expect(ofAlpha.names).toContain('alphavisit');
    expect(ofAlpha.validators).toContain('alphavisit');
    expect(ofAlpha.bootstrapNames).toContain('alphavisit');
    for (const other of [ofBeta, ofNobody]) {
      expect(other.names).not.toContain('alphavisit');
      expect(other.validators).not.toContain('alphavisit');
      // the schema files' entities are everyone's
      expect(other.names).toContain('sysuser');
      expect(other.validators).toContain('sysuser');
    }
    expect(ofBeta.bootstrapNames).toContain('sysuser');
    expect(ofBeta.bootstrapNames).not.toContain('alphavisit');
    // signed out: no bootstrap in the page at all
    expect(await adminBootstrap({ ctx: t.app.ctx, token: 'x'.repeat(40) })).toBeUndefined();

    // Each tenant its ETag: alpha's validator does not get beta a 304 of alpha's answer.
    expect(new Set([ofAlpha.schemasTag, ofBeta.schemasTag, ofNobody.schemasTag]).size).toBe(3);
    expect(new Set([ofAlpha.validatorsTag, ofBeta.validatorsTag, ofNobody.validatorsTag]).size).toBe(3);
    const revalidated = await t.app.inject({
      method: 'GET',
      url: '/api/schemas',
      headers: { ...beta, 'if-none-match': ofAlpha.schemasTag },
    });
    expect(revalidated.statusCode).toBe(200);
    expect(revalidated.body).not.toContain('alphavisit');

    // The back-office imports validators.js as a module: no header, its token cookie only.
    const byCookie = async (headers: Headers, url: string) =>
      (
        await t.app.inject({
          method: 'GET',
          url,
          headers: { cookie: `language=en; token=${tokenOf(headers)}` },
        })
      ).body;
    for (const url of ['/api/schemas', '/api/schemas/validators.js']) {
      expect(await byCookie(alpha, url)).toContain('alphavisit');
      expect(await byCookie(beta, url)).not.toContain('alphavisit');
    }
  });
});

describe('finding 6: names of the system catalogue and the platform tables', () => {
  const reserved = [
    'pg_authid',
    'pg_class',
    'information_schema',
    'sys_user',
    'sys_form',
    'gen_template',
    'wf_task',
  ];

  it('are refused at check with 400 naming /x-entity/table, to every administrator', async () => {
    for (const headers of [beta, t.auth])
      for (const table of reserved) {
        const answer = await call(headers, 'POST', '/api/generator/form/check', {
          formCode: 'catalogue',
          formContent: visitForm({ 'x-entity': { table } }),
        });
        expect([table, answer.statusCode]).toEqual([table, 400]);
        expect(errorsOf(answer).map((error) => error.field)).toEqual(['/formContent/x-entity/table']);
      }
  });

  it('are refused at publish with 400, never a 5xx', async () => {
    const added = await call(beta, 'POST', '/api/generator/form/add', {
      formCode: 'betacatalogue',
      formName: 'Catalogue',
      formContent: visitForm({ 'x-entity': { table: 'pg_class' } }),
    });
    expect(added.statusCode, added.body).toBe(200);
    const published = await call(beta, 'POST', '/api/generator/form/publish', {
      id: dataOf<{ id: number }>(added).id,
      menuParent: 'formgenerator',
      roles: [],
    });
    expect(published.statusCode, published.body).toBe(400);
    expect(errorsOf(published).map((error) => error.field)).toEqual(['/formContent/x-entity/table']);
  });
});
