import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { data, type ErrorBody } from '../support/api.js';

/**
 * Issue 40.11: a generator template that does not compile is refused, and checked, with a
 * sentence in the reader's language at its line and column, not Handlebars' parser message
 * ("Expecting 'CLOSE_RAW_BLOCK', 'CLOSE', … got 'INVALID'").
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 300_000);
afterAll(async () => {
  await t?.close();
});

const BASE = '/api/generator';

async function check(
  language: string,
  content: string,
): Promise<{ message: string; line?: number; column?: number }[]> {
  const answer = await t.request({
    method: 'POST',
    url: `${BASE}/template/check`,
    headers: { ...t.auth, 'accept-language': language },
    payload: { content },
  });
  expect(answer.statusCode, answer.body).toBe(200);
  return data<{ problems: { message: string; line?: number; column?: number }[] }>(answer).problems;
}

describe('template problems a person can read', () => {
  it('an unclosed tag, a block closed by another name, an unknown helper, an unclosed block (zh)', async () => {
    expect(await check('zh', '-- ok\n{{#each fields}}\n  {{column}\n{{/each}}')).toEqual([
      { message: '标签没有正确闭合：此处应为 }}', line: 3, column: 5 },
    ]);
    expect(await check('zh', 'line 1\nline 2 {{#if isTree}}\n{{/each}}')).toEqual([
      { message: '块 {{#if}} 的结束标签是 {{/each}}：两者名称应一致', line: 2, column: 11 },
    ]);
    const [helper] = await check('zh', '\n\n  {{exec "id"}}');
    expect(helper).toMatchObject({ line: 3, column: 3 });
    expect(helper?.message).toMatch(/^未知的助手“exec”：可用的助手有 .*pascal.*each/);
    expect(await check('zh', '{{#each fields}}')).toEqual([
      {
        message: '模板在标签或块闭合之前就结束了：缺少 }} 或块的结束标签（如 {{/each}}）',
        line: 1,
        column: 15,
      },
    ]);
    expect(await check('zh', 'a }} b {{{x}}')).toEqual([
      { message: '此处不应出现“}}”', line: 1, column: 11 },
    ]);
  });

  it('speaks tw and en, and no message is the parser’s', async () => {
    expect((await check('zh-TW', '{{#each fields}}'))[0]?.message).toBe(
      '範本在標籤或區塊閉合之前就結束了：缺少 }} 或區塊的結束標籤（如 {{/each}}）',
    );
    expect((await check('en', 'line 1\nline 2 {{#if isTree}}\n{{/each}}'))[0]?.message).toBe(
      'The block {{#if}} is closed by {{/each}}: the names must match',
    );
    for (const content of ['{{foo', '{{x.[}}', '{{!-- c', '{{#each a}}{{else}}{{else}}{{/each}}'])
      for (const problem of await check('en', content))
        expect(problem.message, content).not.toMatch(/Expecting|got '|Lexical error|knownHelpersOnly/);
  });

  it('a save of a template that does not compile is refused with the same sentence at its place', async () => {
    const broken = await t.request({
      method: 'POST',
      url: `${BASE}/template/add`,
      headers: { ...t.auth, 'accept-language': 'zh' },
      payload: {
        templateType: 'sql',
        templateItem: 'ddl',
        content: '-- ok\n{{#each fields}}\n  {{column}\n{{/each}}',
      },
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json<ErrorBody>().errors).toEqual([
      { field: '/content', message: '3:5 标签没有正确闭合：此处应为 }}' },
    ]);
  });
});
