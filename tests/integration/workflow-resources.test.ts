import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadI18n } from '../../src/server/lib/i18n.js';
import { syncWorkflowDicts } from '../../src/server/features/workflow/dicts.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';
import { bearer, bpmn, call, deploy, flow } from '../support/workflow.js';

/**
 * Issue 40 point 13: 部署管理 shows a deployment's resources (its BPMN file as deployed, with the
 * definitions it made), and a database seeded before 转办 gets the button's dictionary label.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
}, 300_000);
afterAll(async () => {
  await t?.close();
});

const FLOW = bpmn(
  'res_flow',
  `<startEvent id="s"/>${flow('f0', 's', 'review')}
   <userTask id="review" name="审核" camunda:assignee="admin"/>${flow('f1', 'review', 'e')}<endEvent id="e"/>`,
);

describe('deployment/resources', () => {
  it("answers the deployment's BPMN file as deployed, with the definition it made", async () => {
    const first = await deploy(t, FLOW);
    const second = await deploy(t, FLOW.replace('name="审核"', 'name="复核"'));
    expect(second.version).toBe(first.version + 1);
    const answer = await call(t, t.auth, 'GET', `deployment/resources?id=${second.deploymentId}`);
    expect(answer.statusCode, answer.body).toBe(200);
    const [resource, ...more] = answer.json().data;
    expect(more).toEqual([]);
    expect(resource).toMatchObject({
      deploymentId: second.deploymentId,
      name: 'res_flow.bpmn20.xml',
      definitions: [
        { id: second.processDefinitionId, key: 'res_flow', name: 'res_flow', version: second.version },
      ],
    });
    // the file of this deployment, byte for byte, not the other version's
    expect(resource.xml).toBe(FLOW.replace('name="审核"', 'name="复核"'));
    expect(resource.size).toBe(Buffer.byteLength(resource.xml, 'utf8'));
    const older = await call(t, t.auth, 'GET', `deployment/resources?id=${first.deploymentId}`);
    expect(older.json().data[0].xml).toContain('name="审核"');
  });

  it('answers 404 for an unknown deployment and 403 for a user without the deployment screen', async () => {
    const missing = await call(t, t.auth, 'GET', 'deployment/resources?id=999999');
    expect(missing.statusCode).toBe(404);
    const bad = await call(t, t.auth, 'GET', 'deployment/resources?id=x');
    expect(bad.statusCode).toBe(400);
    const { deploymentId } = await deploy(t, FLOW);
    const buyer = bearer((await createUserWithRole(t, 'res_buyer', 'ROLE_SYS_BUYER')).token);
    const refused = await call(t, buyer, 'GET', `deployment/resources?id=${deploymentId}`);
    expect(refused.statusCode).toBe(403);
  });
});

describe('menu_button dictionary on a database seeded before 转办 and 加签', () => {
  const options = async (): Promise<{ dictValue: string; dictName: string }[]> => {
    const answer = await t.request({
      method: 'GET',
      url: '/api/admin/sysmenu/queryMenuButtonCheckbox',
      headers: t.auth,
    });
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.json().data;
  };

  it('seeds the missing transfer item with its zh label at start, once; a raw label is named', async () => {
    const i18n = loadI18n('locales');
    expect((await options()).find((item) => item.dictValue === 'transfer')?.dictName).toBe('转办');
    // a database from before: no transfer or addSign item
    await t.sql(
      `delete from sys_dict where dict_type = 'menu_button' and dict_value in ('transfer', 'addSign')`,
    );
    expect((await options()).some((item) => ['transfer', 'addSign'].includes(item.dictValue))).toBe(false);
    await syncWorkflowDicts(t.app.ctx, i18n);
    await syncWorkflowDicts(t.app.ctx, i18n);
    const seeded = (await options()).filter((item) => ['transfer', 'addSign'].includes(item.dictValue));
    expect(seeded.map((item) => item.dictName)).toEqual(['转办', '加签']);
    // in their place among the buttons: after 委派 (delegate), before 处理委派 (resolve)
    const values = (await options()).map((item) => item.dictValue);
    expect(values.indexOf('transfer')).toBe(values.indexOf('delegate') + 1);
    expect(values.indexOf('addSign')).toBe(values.indexOf('transfer') + 1);
    // an item whose label is its code gets the label; one an administrator named keeps it
    await t.sql(
      `update sys_dict set dict_name = 'transfer' where dict_type = 'menu_button' and dict_value = 'transfer'`,
    );
    await syncWorkflowDicts(t.app.ctx, i18n);
    expect((await options()).find((item) => item.dictValue === 'transfer')?.dictName).toBe('转办');
    await t.sql(
      `update sys_dict set dict_name = '移交' where dict_type = 'menu_button' and dict_value = 'transfer'`,
    );
    await syncWorkflowDicts(t.app.ctx, i18n);
    expect((await options()).find((item) => item.dictValue === 'transfer')?.dictName).toBe('移交');
  });
});
