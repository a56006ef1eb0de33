import { detailFields, type EntityDef, type FieldError } from '../../../../engine/index.js';
import { checkDictionaries, checkReferences, type CheckContext } from './checks.js';

/**
 * References (x-ref) and dictionary values (x-dict) in detail rows are checked like the parent's
 * own fields, each error naming the row and the column (/lines/2/productId).
 */
export async function checkDetailRows(
  ctx: CheckContext,
  values: Readonly<Record<string, unknown>>,
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const field of detailFields(ctx.entity)) {
    const rows = values[field.name];
    if (!Array.isArray(rows)) continue;
    const { tree: _tree, ...parent } = ctx.entity;
    const rowEntity: EntityDef = {
      ...parent,
      fields: field.detail.fields,
      fieldsByName: field.detail.fieldsByName,
    };
    const rowCtx: CheckContext = { ...ctx, entity: rowEntity };
    for (const [index, row] of (rows as Record<string, unknown>[]).entries()) {
      const found = [...(await checkReferences(rowCtx, row)), ...(await checkDictionaries(rowCtx, row))];
      errors.push(...found.map((error) => ({ ...error, field: `/${field.name}/${index}${error.field}` })));
    }
  }
  return errors;
}
