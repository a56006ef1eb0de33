import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { expectNoAxeViolations } from './a11y.js';
import { apiClient, signedIn, type ApiClient, type Check, type E2eContext } from './support.js';

/**
 * Issue 18: the Import button of a generated list (采购公告): a CSV with a bad row is previewed
 * with the problem on its cell and cannot be imported; the corrected file imports and its rows
 * appear in the list.
 */
export function checks({ server, browser, screenshots }: E2eContext): Check[] {
  const stamp = Date.now().toString(36).slice(-5);
  let admin: ApiClient;
  let context: BrowserContext | undefined;
  let page: Page;
  const shot = (name: string) => page.screenshot({ path: `${screenshots}/import-${name}.png` });
  const csv = (rows: string[][]) => ({
    name: `purchases-${stamp}.csv`,
    mimeType: 'text/csv',
    buffer: Buffer.from(rows.map((row) => row.join(',')).join('\n')),
  });
  const header = ['项目名称', '采购单位', '预算金额'];
  const good = [
    [`导入公告A-${stamp}`, '导入单位', '1000'],
    [`导入公告B-${stamp}`, '导入单位', '2000'],
  ];

  return [
    {
      name: 'a file with a bad row is previewed with the problem on its cell; nothing can be imported',
      run: async () => {
        admin = await apiClient(server.url, 'admin', server.adminPassword);
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1440, height: 900 },
        }));
        await page.goto(`${server.url}/admin/purchase`);
        await page.getByTestId('entity-import').click();
        const dialog = page.getByTestId('import-dialog');
        await dialog.getByTestId('import-template').waitFor();
        await expectNoAxeViolations(page, 'import dialog');
        await dialog
          .locator('input[type=file]')
          .setInputFiles(csv([header, good[0] ?? [], [`坏行-${stamp}`, '', 'abc']]));
        await page.getByTestId('import-preview').waitFor();
        const buyer = page.getByTestId('import-problem-3-buyerName');
        await buyer.waitFor();
        assert.match((await page.getByTestId('import-summary').textContent()) ?? '', /2/);
        await page.getByTestId('import-problem-3-budget').waitFor();
        assert.equal(await page.getByTestId('import-run').isDisabled(), true);
        await shot('preview-problems');
        await expectNoAxeViolations(page, 'import preview with problems');
      },
    },
    {
      name: 'the corrected file imports all its rows and the list shows them',
      run: async () => {
        await page.getByTestId('import-again').click();
        await page
          .getByTestId('import-dialog')
          .locator('input[type=file]')
          .setInputFiles(csv([header, ...good]));
        await page.getByTestId('import-preview').waitFor();
        const run = page.getByTestId('import-run');
        assert.equal(await run.isDisabled(), false);
        await run.click();
        await page.getByTestId('import-done').waitFor();
        await shot('done');
        await page.getByTestId('import-close').click();
        await page.getByTestId('import-dialog').waitFor({ state: 'detached' });
        await page
          .locator('tr.ant-table-row')
          .filter({ hasText: `导入公告A-${stamp}` })
          .waitFor();
        const stored = await admin.get<{ records: { title: string; budget: string }[] }>(
          `/api/notification/purchase/query?title=${encodeURIComponent(stamp)}`,
        );
        // money is exact: answered as its digits at the field's scale
        assert.deepEqual(stored.records.map((record) => record.budget).sort(), ['1000.00', '2000.00']);
        assert.equal(
          stored.records.some((record) => record.title.startsWith('坏行')),
          false,
        );
        await context?.close();
      },
    },
    {
      name: 'a partial import of users runs as a job: progress shown, the dialog left and reopened, then the result with the bad row named by its field title',
      run: async () => {
        // its own client, so that the check also runs alone (issue 39's 50,000-user run)
        admin = await apiClient(server.url, 'admin', server.adminPassword);
        ({ context, page } = await signedIn(browser, server, 'admin', server.adminPassword, {
          viewport: { width: 1440, height: 900 },
        }));
        const roles = await admin.get<{ records: { id: number; roleCode: string }[] }>(
          '/api/admin/sysrole/query?pageSize=100',
        );
        const roleId = roles.records.find((item) => item.roleCode === 'ROLE_ADMIN')?.id;
        const orgs = await admin.get<{ records: { id: number }[] }>('/api/admin/sysorg/query?pageSize=1');
        const orgId = orgs.records[0]?.id;
        // enough users (a password hash each) that the job still runs when the dialog is left;
        // E2E_IMPORT_USERS=50000 is issue 39's measurement at scale (run alone: minutes of hashing)
        const count = Number(process.env.E2E_IMPORT_USERS ?? 400);
        const rows = [
          [
            'username',
            'nickname',
            'password',
            'email',
            'countryCode',
            'mobile',
            'phone',
            'status',
            'roleId',
            'orgId',
          ],
        ];
        for (let i = 0; i < count; i += 1)
          rows.push([
            `job${stamp}u${i}`,
            `Job ${i}`,
            `pass-${i}-word`,
            i === 7 ? 'not-an-email' : `job${stamp}u${i}@example.com`,
            '+86',
            String(13600000000 + i),
            '010-1',
            '正常',
            String(roleId),
            String(orgId),
          ]);
        const file = {
          name: `users-${stamp}.csv`,
          mimeType: 'text/csv',
          buffer: Buffer.from(rows.map((row) => row.join(',')).join('\n')),
        };
        await page.goto(`${server.url}/admin/sysuser`);
        // the list's 共 N 条, read again behind the dialog when the job ends
        const totalItem = page.getByTestId('list-total').first();
        await totalItem.waitFor();
        const before = Number(((await totalItem.textContent()) ?? '').replace(/[^\d]/g, ''));
        await page.getByTestId('entity-import').click();
        let dialog = page.getByTestId('import-dialog');
        await dialog.getByTestId('import-mode-partial').click();
        await dialog.locator('input[type=file]').setInputFiles(file);
        await page.getByTestId('import-preview').waitFor();
        await page.getByTestId('import-problem-9-email').waitFor();
        const run = page.getByTestId('import-run');
        assert.equal(await run.isDisabled(), false, 'partial: the good rows can be imported');
        const startedAt = Date.now();
        await run.click();
        const progress = page.getByTestId('import-job-progress');
        await progress.waitFor();
        await page.waitForFunction(
          (total) =>
            new RegExp(`\\b\\d+ / ${total}\\b`).test(
              document.querySelector('[data-testid=import-job-progress]')?.textContent ?? '',
            ),
          count,
        );
        await shot('job-progress');
        await expectNoAxeViolations(page, 'import job progress');
        // left while it runs, then reopened: the job is shown again, running or ended
        await page.getByTestId('import-leave').click();
        await page.getByTestId('import-dialog').waitFor({ state: 'detached' });
        await page.getByTestId('entity-import').click();
        dialog = page.getByTestId('import-dialog');
        const done = dialog.getByTestId('import-done');
        const leftAt = Date.now();
        // ~50 ms of a core a password hash: a generous allowance a user, and five minutes at least
        await done.waitFor({ timeout: Math.max(300_000, count * 200) });
        console.log(
          `    import of ${count} users: done ${Math.round((Date.now() - startedAt) / 1000)} s after 导入, ${Math.round((Date.now() - leftAt) / 1000)} s after the dialog was reopened`,
        );
        const summary = (await done.textContent()) ?? '';
        assert.match(summary, new RegExp(String(count - 1)));
        assert.match(summary, /1/);
        const problems = (await dialog.getByTestId('import-job-problems').textContent()) ?? '';
        assert.match(problems, /9/);
        assert.match(problems, /邮箱/);
        await shot('job-done');
        const stored = await admin.get<{ total: number }>(
          `/api/admin/sysuser/query?username=${encodeURIComponent(`job${stamp}u`)}&pageSize=10`,
        );
        assert.equal(stored.total, count - 1);
        // the list behind the open dialog already counts them (issue 39: it did only after 关闭)
        await totalItem.filter({ hasText: (before + count - 1).toLocaleString('en-US') }).waitFor();
        await dialog.getByTestId('import-close').click();
        // reopened once more: the ended job is the last import, above a new file's choice
        await page.getByTestId('entity-import').click();
        const last = page.getByTestId('import-dialog').getByTestId('import-last-job');
        await last.waitFor();
        assert.match((await last.textContent()) ?? '', new RegExp(String(count - 1)));
        await context?.close();
      },
    },
  ];
}
