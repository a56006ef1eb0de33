import { readFileSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGETS } from '../../src/server/lib/budgets.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { BOMBS, xlsxOf } from '../support/hostile-xlsx.js';
import { fileUpload } from '../support/multipart.js';

/**
 * Findings 4 and 7 of issue 31. Every budget of reading an import file (BUDGETS.import), each
 * passed by a hostile file made here: a 413 whose message names the budget and its limit, on the
 * part "file", nothing written. And every import route answers a malformed multipart body
 * (no or a wrong boundary, a body cut short, a broken part) with a 400 naming the part "file".
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const zh = JSON.parse(readFileSync(new URL('../../locales/zh.json', import.meta.url), 'utf8')) as {
  errors: { import: { tooLarge: string } };
  import: { budget: Record<string, string> };
};

/** The message a budget's 413 carries in Chinese (the test app's language). */
function budgetText(budget: string, limit: number): string {
  const template = zh.import.budget[budget];
  if (!template) throw new Error(`no text for the budget ${budget}`);
  return template.replace('{{limit}}', String(limit));
}

const PURCHASE_IMPORT = '/api/notification/purchase/import';

function importFile(fileName: string, bytes: Buffer): Promise<LightMyRequestResponse> {
  const form = fileUpload(fileName, bytes);
  return t.request({
    method: 'POST',
    url: `${PURCHASE_IMPORT}?dryRun=true`,
    headers: { ...t.auth, ...form.headers },
    payload: form.payload,
  });
}

const count = async (): Promise<number> =>
  Number((await t.sql<{ n: string | number }>('select count(*) as n from portal_purchase'))[0]?.n);

/** A header row the purchase import knows (title), as an inline string. */
const HEADER = '<row r="1"><c r="A1" t="inlineStr"><is><t>title</t></is></c></row>';

const cases: { name: string; budget: string; limit: number; file: () => Buffer; fileName?: string }[] = [
  {
    name: 'one shared string of 150 MB in 150 KB (finding 4)',
    budget: 'cellCharacters',
    limit: BUDGETS.import.cellCharacters,
    file: BOMBS.oneHugeString,
  },
  {
    name: '3 000 000 shared strings, their count not declared (finding 4)',
    budget: 'sharedStrings',
    limit: BUDGETS.import.sharedStrings,
    file: BOMBS.manyStrings,
  },
  {
    name: 'a shared strings part declaring 3 000 000 strings',
    budget: 'sharedStrings',
    limit: BUDGETS.import.sharedStrings,
    file: () =>
      xlsxOf({ sheetData: [HEADER], sharedStrings: ['<si><t>a</t></si>'], sst: ' uniqueCount="3000000"' }),
  },
  {
    name: 'shared strings of 33 M characters together',
    budget: 'sharedStringCharacters',
    limit: BUDGETS.import.sharedStringCharacters,
    file: () =>
      xlsxOf({
        sheetData: [HEADER],
        sharedStrings: [{ text: `<si><t>${'b'.repeat(32_000)}</t></si>`, count: 1_100 }],
      }),
  },
  {
    name: 'a sheet that unpacks to 513 MB (of spaces)',
    budget: 'unpackedBytes',
    limit: BUDGETS.import.unpackedBytes / (1024 * 1024),
    file: () => xlsxOf({ sheetData: [HEADER, { text: ' '.repeat(1024), count: 513 * 1024 }] }),
  },
  {
    name: 'more rows than an import may have',
    budget: 'rows',
    limit: BUDGETS.import.rows + 1,
    file: () => xlsxOf({ sheetData: [HEADER, { text: '<row/>', count: BUDGETS.import.rows + 1 }] }),
  },
  {
    name: 'more cells than an import may have (a value in the last column of each row)',
    budget: 'cells',
    limit: BUDGETS.import.cells,
    file: () =>
      xlsxOf({
        sheetData: [
          HEADER,
          {
            text: '<row><c r="XFD2"><v>1</v></c></row>',
            count: Math.ceil(BUDGETS.import.cells / BUDGETS.import.columns) + 1,
          },
        ],
      }),
  },
  {
    name: 'a cell past the last column',
    budget: 'columns',
    limit: BUDGETS.import.columns,
    file: () => xlsxOf({ sheetData: [HEADER, '<row r="2"><c r="ZZZZZZZ2"><v>1</v></c></row>'] }),
  },
  {
    name: 'an inline string longer than a cell may be',
    budget: 'cellCharacters',
    limit: BUDGETS.import.cellCharacters,
    file: () =>
      xlsxOf({
        sheetData: [
          HEADER,
          '<row r="2"><c r="A2" t="inlineStr"><is><t>',
          { text: 'c', count: BUDGETS.import.cellCharacters + 1 },
          '</t></is></c></row>',
        ],
      }),
  },
  {
    name: 'one shared string used by so many cells that their text passes the budget',
    budget: 'textCharacters',
    limit: BUDGETS.import.textCharacters,
    file: () =>
      xlsxOf({
        sheetData: [
          HEADER,
          {
            text: '<row><c t="s"><v>0</v></c></row>',
            count: Math.ceil(BUDGETS.import.textCharacters / 32_000) + 1,
          },
        ],
        sharedStrings: [`<si><t>${'d'.repeat(32_000)}</t></si>`],
      }),
  },
  {
    name: 'a tag of 300 KB',
    budget: 'markupBytes',
    limit: BUDGETS.import.markupBytes / 1024,
    file: () =>
      xlsxOf({
        sheetData: [HEADER, '<row r="2"><c r="A2" x="', { text: 'y', count: 300 * 1024 }, '"/></row>'],
      }),
  },
  {
    name: 'a CSV cell longer than a cell may be',
    budget: 'cellCharacters',
    limit: BUDGETS.import.cellCharacters,
    fileName: 'long.csv',
    file: () => Buffer.from(`title\n${'e'.repeat(BUDGETS.import.cellCharacters + 1)}\n`),
  },
  {
    name: 'a CSV row of 2 MB',
    budget: 'rowCharacters',
    limit: 1024 * 1024,
    fileName: 'wide.csv',
    file: () => Buffer.from(`title\n"${'f'.repeat(2 * 1024 * 1024)}"\n`),
  },
  {
    name: 'a CSV of more rows than an import may have',
    budget: 'rows',
    limit: BUDGETS.import.rows + 1,
    fileName: 'long.csv',
    file: () => Buffer.from(`title\n${'g\n'.repeat(BUDGETS.import.rows + 1)}`),
  },
];

describe('import budgets (finding 4 of issue 31)', () => {
  for (const item of cases) {
    it(`${item.name}: 413 naming the budget (${item.budget}), nothing written`, async () => {
      const before = await count();
      const file = item.file();
      // A hostile file stays small: the budget is passed by what it unpacks to or holds.
      expect(file.length).toBeLessThan(3 * 1024 * 1024);
      const started = performance.now();
      const response = await importFile(item.fileName ?? 'hostile.xlsx', file);
      const ms = performance.now() - started;
      expect(response.statusCode, response.body.slice(0, 300)).toBe(413);
      const what = budgetText(item.budget, item.limit);
      expect(response.json()).toEqual({
        code: 413,
        message: zh.errors.import.tooLarge.replace('{{what}}', what),
        errors: [{ field: '/file', message: what }],
      });
      // Refused within the reading's time budget.
      expect(ms).toBeLessThan(BUDGETS.import.parseMs);
      expect(await count()).toBe(before);
    }, 120_000);
  }

  it('a file past the upload budget: 413 before it is read', async () => {
    const form = fileUpload('big.csv', Buffer.alloc(BUDGETS.import.fileBytes + 1, 0x61));
    const response = await t.request({
      method: 'POST',
      url: PURCHASE_IMPORT,
      headers: { ...t.auth, ...form.headers },
      payload: form.payload,
    });
    expect(response.statusCode, response.body.slice(0, 300)).toBe(413);
    expect(response.json<{ message: string }>().message).toContain(String(BUDGETS.import.fileBytes >> 20));
  }, 60_000);

  it('after the hostile files, an import still reads (the reading threads were freed)', async () => {
    const file = xlsxOf({
      sheetData: [HEADER, '<row r="2"><c r="A2" t="inlineStr"><is><t>After the bombs</t></is></c></row>'],
    });
    const response = await importFile('fine.xlsx', file);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json<{ data: { total: number; columns: { field: string }[] } }>().data).toMatchObject({
      total: 1,
      columns: [{ field: 'title' }],
    });
  });
});

/** Every route that takes an import file, from the API's own description (multipart bodies). */
async function importRoutes(): Promise<string[]> {
  const document = (await t.request({ method: 'GET', url: '/api/openapi.json' })).json<{
    paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>>;
  }>();
  const found: string[] = [];
  for (const [path, methods] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(methods))
      if (
        method === 'post' &&
        path.endsWith('/import') &&
        operation.requestBody?.content?.['multipart/form-data']
      )
        found.push(path);
  return found;
}

describe('import routes on the upload reader (finding 7 of issue 31)', () => {
  const FORM = {
    type: 'object',
    title: 'Budget form',
    required: ['subject'],
    properties: { subject: { type: 'string', title: 'Subject', maxLength: 60 } },
  };

  it('every import route answers a malformed multipart body with a 400 naming the part "file"', async () => {
    const added = await t.request({
      method: 'POST',
      url: '/api/generator/form/add',
      headers: t.auth,
      payload: { formCode: 'budgetform', formName: 'Budget form', formContent: FORM },
    });
    expect(added.statusCode, added.body).toBe(200);
    const published = await t.request({
      method: 'POST',
      url: '/api/generator/form/publish',
      headers: t.auth,
      payload: { id: added.json<{ data: { id: number } }>().data.id, menuParent: 'formgenerator', roles: [] },
    });
    expect(published.statusCode, published.body).toBe(200);

    const routes = (await importRoutes()).map((path) => path.replace('{form}', 'budgetform'));
    // The entities of schemas/ and the published forms' route.
    expect(routes.length).toBeGreaterThanOrEqual(19);
    expect(routes).toContain('/api/online/budgetform/import');
    const part = `--x\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\ntitle\r\nT\r\n`;
    const bodies: [string, string, string][] = [
      ['no boundary', 'multipart/form-data', `${part}--x--\r\n`],
      ['a wrong boundary', 'multipart/form-data; boundary=y', `${part}--x--\r\n`],
      ['a body cut short', 'multipart/form-data; boundary=x', part],
      ['an empty body', 'multipart/form-data; boundary=x', ''],
      [
        'a broken part header',
        'multipart/form-data; boundary=x',
        '--x\r\nno colon here\r\n\r\nvalue\r\n--x--\r\n',
      ],
      ['a broken delimiter line', 'multipart/form-data; boundary=x', '--xjunk\r\n\r\n--x--'],
      ['an empty part (the fuzz body)', 'multipart/form-data; boundary=x', '--x\r\n\r\n--x--'],
    ];
    const wrong: string[] = [];
    for (const url of routes)
      for (const [what, contentType, payload] of bodies) {
        const response = await t.request({
          method: 'POST',
          url: `${url}?dryRun=true`,
          headers: { ...t.auth, 'content-type': contentType },
          payload,
        });
        const errors =
          response.statusCode === 400 ? response.json<{ errors?: { field: string }[] }>().errors : [];
        if (response.statusCode !== 400 || !errors?.some((error) => error.field === '/file'))
          wrong.push(`${url} ${what}: ${response.statusCode} ${response.body.slice(0, 160)}`);
      }
    expect(wrong).toEqual([]);
  }, 300_000);
});
