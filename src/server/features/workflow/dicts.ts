import { sql } from 'kysely';
import type { AppContext } from '../../lib/context.js';
import { DICTIONARY_ENTITY } from '../../lib/dictionaries.js';
import type { I18n } from '../../lib/i18n.js';
import { insertRecords } from '../../lib/sql/insert-records.js';
import { updateBookkeeping, type Actor } from '../../lib/sql/toolkit.js';

/**
 * Workflow buttons of the menu_button dictionary that came after the first seed (转办, 加签): a
 * database seeded before them gets them, with their zh label, on its next start, as the menus get
 * the buttons themselves (menus.ts). Without the item the menu-button editor does not offer the
 * button and a screen shows its raw code. An item left with its code as its label (`transfer`)
 * gets the label too; a label an administrator gave is kept. The seed (dicts.json) has them for
 * new databases.
 */
export const LATER_MENU_BUTTONS: { value: string; sequence: number }[] = [
  { value: 'transfer', sequence: 195 },
  { value: 'addSign', sequence: 196 },
];

export async function syncWorkflowDicts(ctx: AppContext, i18n: I18n): Promise<void> {
  const dict = ctx.registry.require(DICTIONARY_ENTITY);
  const actor: Actor = { userId: null, username: 'system', tenantCode: ctx.config.defaultTenant };
  const labelOf = (value: string): string => i18n.t('zh', `dicts.menu_button.${value}`);
  await ctx.db.transaction().execute(async (trx) => {
    // one start at a time (several processes on one database start together)
    await sql`select pg_advisory_xact_lock(7243016)`.execute(trx);
    const groups = await sql<{ id: number | string }>`select id from ${sql.table(dict.table)}
      where dict_type = 'menu_button' and dict_parent = 0 order by id limit 1`.execute(trx);
    const group = groups.rows[0];
    if (!group) return;
    const existing = await sql<{ id: number | string; value: string; name: string | null }>`select id,
        dict_value as value, dict_name as name from ${sql.table(dict.table)}
      where dict_type = 'menu_button' and dict_parent = ${Number(group.id)}`.execute(trx);
    const byValue = new Map(existing.rows.map((row) => [row.value, row]));
    const missing = LATER_MENU_BUTTONS.filter((item) => !byValue.has(item.value));
    if (missing.length > 0)
      await insertRecords({
        trx,
        registry: ctx.registry,
        entity: dict,
        actor,
        records: missing.map((item) => ({
          dictType: 'menu_button',
          dictName: labelOf(item.value),
          dictValue: item.value,
          dictSequence: item.sequence,
          dictParent: Number(group.id),
        })),
      });
    for (const item of LATER_MENU_BUTTONS) {
      const row = byValue.get(item.value);
      if (row && (row.name === null || row.name.trim() === '' || row.name === item.value))
        await sql`update ${sql.table(dict.table)}
          set ${sql.join([sql`dict_name = ${labelOf(item.value)}`, ...updateBookkeeping(dict, actor)])}
          where id = ${Number(row.id)}`.execute(trx);
    }
  });
}
