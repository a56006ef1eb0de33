import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';

/**
 * Issue 40: 重新发布 sets who holds a designed form's menu, buttons and API to exactly the roles
 * chosen. A role removed from the dialog's prefilled list loses its access (its users are refused
 * the form's list and no longer see its menu); a body without `roles` keeps the grants; a refused
 * publication changes none of them.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

type Json = Record<string, unknown>;
const dataOf = <T = Json>(response: LightMyRequestResponse): T => (response.json() as Json).data as T;
const BUYER = 'ROLE_SYS_BUYER';
const SUPPLIER = 'ROLE_SYS_SUPPLIER';

describe('republishing a designed form with fewer roles (issue 40)', () => {
  let formId = 0;
  let buyer = '';
  let supplier = '';
  const publish = (roles?: string[]) =>
    t.request({
      method: 'POST',
      url: '/api/generator/form/publish',
      headers: t.auth,
      payload: { id: formId, menuParent: 'formgenerator', ...(roles ? { roles } : {}) },
    });
  /** What a user of the role meets: the form's list answer, and whether the form is in their menus. */
  const seenBy = async (token: string): Promise<{ list: number; hasMenu: boolean }> => {
    const headers = { authorization: `Bearer ${token}` };
    const list = await t.request({ method: 'GET', url: '/api/online/grantvisit/query', headers });
    const menus = await t.request({
      method: 'POST',
      url: '/api/account/sysuserdetail/queryCurrentAuthority',
      headers,
      payload: {},
    });
    expect(menus.statusCode, menus.body).toBe(200);
    return {
      list: list.statusCode,
      hasMenu: dataOf<{ menu: string[] }>(menus).menu.includes('/online/grantvisit'),
    };
  };
  const menuRoles = async (): Promise<string[] | undefined> =>
    dataOf<{ records: { menuRoles?: string[] }[] }>(
      await t.request({ method: 'GET', url: `/api/generator/form/query?id=${formId}`, headers: t.auth }),
    ).records[0]?.menuRoles;

  beforeAll(async () => {
    const added = await t.request({
      method: 'POST',
      url: '/api/generator/form/add',
      headers: t.auth,
      payload: {
        formCode: 'grantvisit',
        formName: 'Visits',
        formContent: {
          title: 'Visits',
          type: 'object',
          required: ['visitor'],
          properties: { visitor: { type: 'string', title: 'Visitor', maxLength: 40 } },
        },
      },
    });
    expect(added.statusCode, added.body).toBe(200);
    formId = dataOf<{ id: number }>(added).id;
    buyer = (await createUserWithRole(t, 'grantbuyer', BUYER)).token;
    supplier = (await createUserWithRole(t, 'grantsupplier', SUPPLIER)).token;
  });

  it('published with two roles, republished with one: the other role is refused the list and has no menu', async () => {
    const first = await publish([BUYER, SUPPLIER]);
    expect(first.statusCode, first.body).toBe(200);
    expect(await seenBy(buyer)).toEqual({ list: 200, hasMenu: true });
    expect(await seenBy(supplier)).toEqual({ list: 200, hasMenu: true });
    expect(await menuRoles()).toEqual([BUYER, SUPPLIER]);

    const again = await publish([BUYER]);
    expect(again.statusCode, again.body).toBe(200);
    expect(await seenBy(supplier)).toEqual({ list: 403, hasMenu: false });
    expect(await seenBy(buyer)).toEqual({ list: 200, hasMenu: true });
    // the dialog of the next 重新发布 offers the buyer role alone
    expect(await menuRoles()).toEqual([BUYER]);
    // no button or URL grant of the form is left to the supplier role
    const left = await t.sql<{ n: number }>(
      `select (select count(*) from sys_role_button rb join sys_menu m on m.id = rb.menu_id
          where rb.role_id = r.id and m.menu_code = 'online_grantvisit')
        + (select count(*) from sys_role_url ru join sys_url u on u.id = ru.url_id
          where ru.role_id = r.id and u.url = '/api/online/grantvisit/**') as n
       from sys_role r where r.role_code = $1 and r.tenant_code = 'default'`,
      [SUPPLIER],
    );
    expect(left.map((row) => Number(row.n))).toEqual([0]);
    // who holds the menu is audited
    const audited = await t.sql<{ before: Json; after: Json }>(
      `select before, after from sys_audit_log where entity = 'sys_role_menu' order by id`,
    );
    expect(audited.at(-1)?.after).toEqual({ role_id: [expect.any(Number)] });
    expect((audited.at(-1)?.before.role_id as number[]).length).toBe(2);
  });

  it('a refused republication and one without roles leave the grants as they were', async () => {
    const refused = await publish([SUPPLIER, 'ROLE_NOPE']);
    expect(refused.statusCode).toBe(400);
    expect((refused.json() as { errors: { field: string }[] }).errors).toEqual([
      expect.objectContaining({ field: '/roles' }),
    ]);
    expect(await seenBy(supplier)).toEqual({ list: 403, hasMenu: false });
    const kept = await publish();
    expect(kept.statusCode, kept.body).toBe(200);
    expect(await seenBy(buyer)).toEqual({ list: 200, hasMenu: true });
    expect(await menuRoles()).toEqual([BUYER]);
  });

  it('republished with roles [], no role of the tenant keeps the form', async () => {
    const none = await publish([]);
    expect(none.statusCode, none.body).toBe(200);
    expect(await seenBy(buyer)).toEqual({ list: 403, hasMenu: false });
    expect(await menuRoles()).toEqual([]);
    // the administrator still reaches it
    const list = await t.request({ method: 'GET', url: '/api/online/grantvisit/query', headers: t.auth });
    expect(list.statusCode, list.body).toBe(200);
  });
});
