import { sql, type RawBuilder } from 'kysely';
import { fileFieldUse, fileIdsOf, type FieldDef, type FieldError } from '../../../../engine/index.js';
import { isAdmin } from '../../rbac/index.js';
import type { CheckContext } from './checks.js';

/**
 * File fields (x-ui upload / image holding file ids) take only files the caller may see: of
 * their tenant, and their own unless the file is a picture (shared content) or the caller is an
 * administrator; a picture field takes pictures only. Same visibility as /api/file/file/download.
 */
export async function checkFileFields(
  ctx: CheckContext,
  values: Record<string, unknown>,
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const field of ctx.entity.fields) {
    const use = fileFieldUse(field);
    const ids = use ? [...new Set(fileIdsOf(values[field.name]))] : [];
    if (!use || ids.length === 0) continue;
    const visible = isAdmin(ctx.roles ?? [])
      ? sql`true`
      : sql`(owner_id = ${ctx.actor.userId} or file_use = 'image')`;
    const kind = use === 'image' ? sql`and file_use = 'image'` : sql``;
    const found = await sql<{ id: number }>`select id from sys_file
      where id in (${sql.join(ids)}) and tenant_code = ${ctx.actor.tenantCode} and ${visible} ${kind}`.execute(
      ctx.trx,
    );
    const known = new Set(found.rows.map((row) => Number(row.id)));
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length > 0) {
      errors.push({
        field: `/${field.name}`,
        message: ctx.l10n.t('errors.refMissing', {
          entity: ctx.l10n.t('files.title'),
          key: missing.join(', '),
        }),
      });
    }
  }
  return errors;
}

/**
 * The names of the files a file field holds, as one text (an export cell): "a.pdf, b.docx" in
 * the field's order; an id whose file is gone stays as its number. Undefined for other fields.
 */
export function fileNamesSelect({
  field,
  value,
  tenantCode,
}: {
  field: FieldDef;
  /** The SQL of the field's value (an id, or a JSON array of ids). */
  value: RawBuilder<unknown>;
  tenantCode: string;
}): RawBuilder<unknown> | undefined {
  if (!fileFieldUse(field)) return undefined;
  if (field.type === 'integer') {
    return sql`coalesce((select f.original_filename from sys_file f
      where f.id = ${value} and f.tenant_code = ${tenantCode}), ${value}::text)`;
  }
  return sql`(select string_agg(coalesce(f.original_filename, e.v), ', ' order by e.n)
    from jsonb_array_elements_text(${value}) with ordinality as e(v, n)
    left join sys_file f on f.id::text = e.v and f.tenant_code = ${tenantCode})`;
}
