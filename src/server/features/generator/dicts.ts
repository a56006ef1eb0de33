import { sql } from 'kysely';
import { insertRecords } from '../../lib/sql/insert-records.js';
import type { Actor } from '../../lib/sql/toolkit.js';
import type { AppContext } from '../../lib/context.js';
import type { I18n } from '../../lib/i18n.js';

/**
 * The code generator's template items (dictionary template_item) that came after the first
 * seed: a database seeded before them gets them on its next start. The seed itself (dicts.json)
 * has them for new databases.
 */
const LATER_ITEMS = [
  { value: 'test', sequence: 80 },
  { value: 'menu', sequence: 90 },
];

export async function syncGeneratorDicts(ctx: AppContext, i18n: I18n): Promise<void> {
  const dict = ctx.registry.require('sysdict');
  const actor: Actor = { userId: null, username: 'system', tenantCode: ctx.config.defaultTenant };
  await ctx.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(7243015)`.execute(trx);
    const groups = await sql<{ id: number | string }>`select id from ${sql.table(dict.table)}
      where dict_type = 'template_item' and dict_parent = 0`.execute(trx);
    const group = groups.rows[0];
    if (!group) return;
    const existing = await sql<{ value: string }>`select dict_value as value from ${sql.table(dict.table)}
      where dict_type = 'template_item' and dict_parent = ${Number(group.id)}`.execute(trx);
    const have = new Set(existing.rows.map((row) => row.value));
    const missing = LATER_ITEMS.filter((item) => !have.has(item.value));
    if (missing.length === 0) return;
    await insertRecords({
      trx,
      registry: ctx.registry,
      entity: dict,
      actor,
      records: missing.map((item) => ({
        dictType: 'template_item',
        dictName: i18n.t('zh', `dicts.template_item.${item.value}`),
        dictValue: item.value,
        dictSequence: item.sequence,
        dictParent: Number(group.id),
      })),
    });
  });
}
