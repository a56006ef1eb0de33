import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { createUserWithRole } from '../support/users.js';
import { bearer, bpmn, call, deploy, flow, start, WF } from '../support/workflow.js';

/**
 * Issue 40.3: settings the engine does not honour are warnings naming the element and the
 * attribute (zh, tw, en) at save and deploy; candidate starters are enforced: only they start the
 * process (403 for another user) and only they see it among the startable definitions.
 */
let t: TestApp;
let starter: { authorization: string };
let other: { authorization: string };
beforeAll(async () => {
  t = await startTestApp();
  starter = bearer((await createUserWithRole(t, 'ign_starter', 'ROLE_SYS_BUYER')).token);
  other = bearer((await createUserWithRole(t, 'ign_other', 'ROLE_SYS_BUYER')).token);
}, 300_000);
afterAll(async () => {
  await t?.close();
});

const IGNORED = bpmn(
  'ign_settings',
  `<startEvent id="s" camunda:asyncBefore="true"/>${flow('f1', 's', 'task')}
  <userTask id="task" name="审核" camunda:assignee="admin" camunda:dueDate="\${due}" camunda:priority="80" camunda:asyncAfter="true">
    <extensionElements><camunda:inputOutput><camunda:inputParameter name="x">1</camunda:inputParameter></camunda:inputOutput></extensionElements>
  </userTask>${flow('f2', 'task', 'e')}<endEvent id="e"/>`,
).replace('isExecutable="true"', 'isExecutable="true" camunda:historyTimeToLive="180"');

async function deployIn(language: string, xml: string): Promise<{ field: string; message: string }[]> {
  const response = await t.request({
    method: 'POST',
    url: `${WF}/deployment/deployXml`,
    headers: { ...t.auth, 'accept-language': language },
    payload: { xml },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data.warnings;
}

describe('settings the engine ignores', () => {
  it('deploy warns about each, naming the element and the attribute, in zh, tw and en', async () => {
    const zh = await deployIn('zh', IGNORED);
    expect(zh).toEqual([
      {
        field: 'ign_settings',
        message: 'ign_settings：历史清理（保留时间）（camunda:historyTimeToLive）本引擎不支持，已忽略',
      },
      { field: 's', message: 's：异步延续（之前）（camunda:asyncBefore）本引擎不支持，已忽略' },
      { field: 'task', message: 'task (审核)：异步延续（之后）（camunda:asyncAfter）本引擎不支持，已忽略' },
      { field: 'task', message: 'task (审核)：到期日期（camunda:dueDate）本引擎不支持，已忽略' },
      { field: 'task', message: 'task (审核)：优先级（camunda:priority）本引擎不支持，已忽略' },
      { field: 'task', message: 'task (审核)：输入/输出（camunda:inputOutput）本引擎不支持，已忽略' },
    ]);
    const tw = await deployIn('tw', IGNORED);
    expect(tw.map((warning) => warning.message)).toContain(
      's：非同步延續（之前）（camunda:asyncBefore）本引擎不支援，已忽略',
    );
    const en = await deployIn('en', IGNORED);
    expect(en.map((warning) => warning.message)).toContain(
      'task (审核): Input/output (camunda:inputOutput) is ignored: this engine does not support it',
    );
  });

  it('saving a model answers the same warnings', async () => {
    const created = await call(t, t.auth, 'POST', 'model/add', { name: 'ign model', key: 'ign_model' });
    expect(created.statusCode, created.body).toBe(200);
    const id = created.json().data.id as number;
    const saved = await call(t, t.auth, 'PUT', 'model/saveXml', {
      id,
      xml: IGNORED.replace(/ign_settings/g, 'ign_model'),
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const fields = (saved.json().data.warnings as { field: string; message: string }[]).map(
      (warning) => `${warning.field} ${warning.message}`,
    );
    expect(fields).toContain('task task (审核)：到期日期（camunda:dueDate）本引擎不支持，已忽略');
  });

  it('a plain file has no such warning', async () => {
    const answer = await deploy(
      t,
      bpmn('ign_plain', `<startEvent id="s"/>${flow('f1', 's', 'e')}<endEvent id="e"/>`),
    );
    expect(answer.warnings).toEqual([]);
  });
});

describe('candidate starters', () => {
  const RESTRICTED = bpmn(
    'ign_starters',
    `<startEvent id="s"/>${flow('f1', 's', 'e')}<endEvent id="e"/>`,
  ).replace('isExecutable="true"', 'isExecutable="true" camunda:candidateStarterUsers="ign_starter"');
  const BY_ROLE = bpmn(
    'ign_starters_role',
    `<startEvent id="s"/>${flow('f1', 's', 'e')}<endEvent id="e"/>`,
  ).replace(
    'isExecutable="true"',
    'isExecutable="true" camunda:candidateStarterGroups="role:ROLE_SYS_BUYER"',
  );

  const startableKeys = async (caller: { authorization: string }): Promise<string[]> => {
    const response = await call(
      t,
      caller,
      'GET',
      'processdefinition/query?latestOnly=true&startable=true&pageSize=500&name=ign_',
    );
    expect(response.statusCode, response.body).toBe(200);
    return (response.json().data.records as { key: string }[]).map((row) => row.key).sort();
  };

  it('only a candidate starter starts the process; another user gets 403 and does not see it', async () => {
    const answer = await deploy(t, RESTRICTED);
    expect(answer.warnings).toEqual([]);
    const started = await start(t, starter, 'ign_starters');
    expect(started.ended).toBe(true);
    const refused = await t.request({
      method: 'POST',
      url: `${WF}/processinstance/start`,
      headers: { ...other, 'accept-language': 'zh' },
      payload: { processDefinitionKey: 'ign_starters', description: 'not mine' },
    });
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json().message).toBe('您不能发起流程 ign_starters：它只允许其候选发起人发起');
    const [count] = await t.sql<{ n: string }>(
      "select count(*) as n from wf_instance where process_key = 'ign_starters'",
    );
    expect(Number(count?.n)).toBe(1);
    expect(await startableKeys(starter)).toContain('ign_starters');
    expect(await startableKeys(other)).not.toContain('ign_starters');
    // without startable, the definitions list (管理) still shows it
    const all = await call(t, other, 'GET', 'processdefinition/query?key=ign_starters');
    expect(all.json().data.records).toHaveLength(1);
  });

  it('a role named as candidate starter group lets its holders start; an unknown user is a warning', async () => {
    await deploy(t, BY_ROLE);
    expect((await start(t, other, 'ign_starters_role')).ended).toBe(true);
    expect(await startableKeys(other)).toContain('ign_starters_role');
    const admin = await call(t, t.auth, 'POST', 'processinstance/start', {
      processDefinitionKey: 'ign_starters_role',
      description: 'admin holds no ROLE_SYS_BUYER',
    });
    expect(admin.statusCode, admin.body).toBe(403);
    const unknown = await deploy(
      t,
      RESTRICTED.replace(/ign_starters/g, 'ign_starters_unknown').replace(
        'candidateStarterUsers="ign_starter"',
        'candidateStarterUsers="nobody_here"',
      ),
    );
    expect(unknown.warnings).toEqual([
      expect.objectContaining({
        field: 'ign_starters_unknown',
        message: expect.stringContaining('nobody_here'),
      }),
    ]);
  });
});

describe('candidates named as people know them (issue 40.11)', () => {
  it("a task's candidate groups come with their role names, not role:ROLE_X", async () => {
    await deploy(
      t,
      bpmn(
        'ign_group_names',
        `<startEvent id="s"/>${flow('f1', 's', 'review')}<userTask id="review" name="复核" camunda:candidateGroups="role:ROLE_SYS_BUYER,role:ROLE_NOBODY_HERE"/>${flow('f2', 'review', 'e')}<endEvent id="e"/>`,
      ),
    );
    const started = await start(t, starter, 'ign_group_names');
    const [task] = await t.sql<{ id: number }>('select id from wf_task where instance_id = $1', [started.id]);
    const [role] = await t.sql<{ role_name: string }>(
      "select role_name from sys_role where role_code = 'ROLE_SYS_BUYER' and tenant_code = 'default'",
    );
    const detail = await call(t, starter, 'GET', `task/detail?id=${task?.id}`);
    expect(detail.statusCode, detail.body).toBe(200);
    expect(detail.json().data.candidates).toEqual({
      users: [],
      groups: ['role:ROLE_SYS_BUYER', 'role:ROLE_NOBODY_HERE'],
      groupNames: [role?.role_name, 'ROLE_NOBODY_HERE'],
    });
  });
});
