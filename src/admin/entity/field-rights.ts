import type { RJSFSchema, UiSchema } from '@rjsf/utils';
import type { FieldRights } from '../../engine/api-types.js';

/**
 * The caller's field rights on a generated form (queryCurrentAuthority's fieldRights, features/rbac
 * field-rights.ts on the server): a hidden field is left out of the form, a read-only one shown
 * disabled (its value travels unchanged, which the server accepts; a change it refuses with 403).
 */
export function withFieldRights<T>(
  schema: RJSFSchema,
  uiSchema: UiSchema<T>,
  rights: FieldRights | undefined,
): { schema: RJSFSchema; uiSchema: UiSchema<T> } {
  if (!rights || (rights.hidden.length === 0 && rights.readOnly.length === 0)) return { schema, uiSchema };
  const hidden = new Set(rights.hidden);
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).filter(([name]) => !hidden.has(name)),
  );
  const required = (schema.required ?? []).filter((name) => !hidden.has(name));
  const ui: Record<string, unknown> = { ...uiSchema };
  const order = ui['ui:order'];
  if (Array.isArray(order)) ui['ui:order'] = order.filter((name) => !hidden.has(String(name)));
  for (const name of hidden) delete ui[name];
  for (const name of rights.readOnly) {
    if (!(name in properties)) continue;
    ui[name] = { ...((ui[name] as Record<string, unknown> | undefined) ?? {}), 'ui:disabled': true, 'ui:readonly': true };
  }
  return { schema: { ...schema, properties, required }, uiSchema: ui as UiSchema<T> };
}

/** Whether a list column shows: a field the roles hide is left out (its cells would be empty). */
export function isShownField(rights: FieldRights | undefined, field: string): boolean {
  return !rights?.hidden.includes(field);
}
