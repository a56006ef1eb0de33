import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInTemplates, generateForward } from '../../generators/forward.js';
import type { GeneratorInput } from '../../generators/model.js';
import { srcRootFrom, writeGenerated } from '../../generators/write.js';
import { PGliteDialect } from '../../src/server/lib/db/pglite-dialect.js';
import { entityInput, PROJECT_ROOT, TEMPLATES_DIR } from './support.js';

/**
 * Issue 35: the generated service checks every reference (x-ref) of the entity as the engine
 * does, not only a tree's parent: a value naming no record of the referenced entity in the
 * caller's scope (none at all, another tenant's) is a 400 naming the
 * field, for the record's own fields and for each detail row's.
 */
const SHAPES = join(PROJECT_ROOT, 'tests', 'generators', 'fixtures', 'shapes');
const shape = (name: string): GeneratorInput => ({
  name,
  schema: JSON.parse(readFileSync(join(SHAPES, `${name}.schema.json`), 'utf8')) as unknown,
});

interface Service {
  add(actor: Actor, input: Record<string, unknown>): Promise<Record<string, unknown>>;
  update(actor: Actor, key: number, input: Record<string, unknown>): Promise<Record<string, unknown>>;
  remove(actor: Actor, keys: number[]): Promise<number>;
}
interface Actor {
  tenantCode: string;
  username: string;
}
const actor: Actor = { tenantCode: 'default', username: 'tester' };
const other: Actor = { tenantCode: 'other', username: 'tester' };

describe('the generated service checks every reference of the entity', () => {
  const out = join(PROJECT_ROOT, '.tmp', `codegen-refs-${randomBytes(4).toString('hex')}`);
  let pglite: PGlite;
  let db: Kysely<Record<string, never>>;
  const services: Record<string, Service> = {};

  beforeAll(async () => {
    const files = await generateForward(
      {
        serviceName: 'gen',
        packageName: 'gen',
        srcRoot: srcRootFrom(out, 'gen', PROJECT_ROOT),
        // shopnote.categoryId → category (generated with it); bizorder's lines.buyerId → sysuser (schemas/).
        entities: [shape('shopnote'), shape('category'), entityInput('bizorder'), entityInput('sysuser')],
        templateType: 'backend',
      },
      builtInTemplates(TEMPLATES_DIR),
    );
    mkdirSync(out, { recursive: true });
    writeGenerated(out, files);
    pglite = new PGlite();
    db = new Kysely({ dialect: new PGliteDialect(pglite) });
    const ddl = (
      await generateForward(
        {
          serviceName: 'gen',
          packageName: 'gen',
          entities: [shape('shopnote'), shape('category'), entityInput('bizorder'), entityInput('sysuser')],
          templateType: 'sql',
        },
        builtInTemplates(TEMPLATES_DIR),
      )
    )
      .filter((file) => file.path.endsWith('schema.sql'))
      .map((file) => file.content)
      .join('\n');
    for (const statement of ddl.split(/;\s*\n/).map((part) => part.replace(/^--.*$/gm, '').trim()))
      if (statement) await sql.raw(statement).execute(db);
    for (const name of ['shopnote', 'category', 'bizorder']) {
      const module = (await import(pathToFileURL(join(out, 'gen', name, 'service.ts')).href)) as Record<
        string,
        (database: unknown) => Service
      >;
      const create = Object.entries(module).find(([key]) => /^create.*Service$/.test(key))?.[1];
      if (!create) throw new Error(`no service in ${name}`);
      services[name] = create(db);
    }
  }, 120_000);

  afterAll(async () => {
    await db?.destroy();
    rmSync(out, { recursive: true, force: true });
  });

  it("refuses a record's reference to none, and to another tenant's, naming the field", async () => {
    const category = await services.category?.add(actor, { categoryName: '五金', parentId: 0 });
    const theirs = await services.category?.add(other, { categoryName: '他们的', parentId: 0 });
    const note = { noteCode: 'N1', title: '开业' };
    const added = await services.shopnote?.add(actor, { ...note, categoryId: category?.id });
    expect(added?.categoryId).toBe(category?.id);
    for (const categoryId of [987654321, theirs?.id])
      await expect(
        services.shopnote?.add(actor, { ...note, noteCode: 'N2', categoryId }),
      ).rejects.toMatchObject({
        status: 400,
        errors: [{ field: '/categoryId', message: 'errors.refMissing' }],
      });
    // A change is checked as an add is.
    await expect(
      services.shopnote?.update(actor, Number(added?.id), { categoryId: theirs?.id }),
    ).rejects.toMatchObject({ status: 400, errors: [{ field: '/categoryId' }] });
    // Nothing of a refused write stays.
    const notes = await sql<{ note_code: string }>`select note_code from shop_note order by id`.execute(db);
    expect(notes.rows.map((row) => row.note_code)).toEqual(['N1']);
  });

  it("refuses a detail row's reference to none or to another tenant's record, naming the row and field", async () => {
    await sql`insert into sys_user (username, nickname, password, tenant_code) values ('buyer', 'Buyer', 'x', 'default'), ('theirs', 'Theirs', 'x', 'other')`.execute(
      db,
    );
    const users = await sql<{ id: number; username: string }>`select id, username from sys_user`.execute(db);
    const idOf = (name: string) => Number(users.rows.find((row) => row.username === name)?.id);
    const line = { productName: 'Bolt', qty: 2 };
    const order = await services.bizorder?.add(actor, {
      orderNo: 'O1',
      lines: [{ ...line, buyerId: idOf('buyer') }],
    });
    expect(order?.lines).toEqual([expect.objectContaining({ buyerId: idOf('buyer') })]);
    for (const buyerId of [987654321, idOf('theirs')])
      await expect(
        services.bizorder?.add(actor, {
          orderNo: 'O2',
          lines: [line, { ...line, buyerId }],
        }),
      ).rejects.toMatchObject({
        status: 400,
        errors: [{ field: '/lines/1/buyerId', message: 'errors.refMissing' }],
      });
  });
});
