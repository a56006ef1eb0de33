import type { UiSchema } from '@rjsf/utils';
import type { FieldRights } from '../../engine/api-types.js';

/**
 * The caller's field rights on a generated form (queryCurrentAuthority's fieldRights; on the
 * server features/rbac/permissions/field-rights.ts): a hidden field is not shown (ui:widget
 * hidden: the schema stays the one the precompiled validator was built for) and its value is not
 * sent (fieldsSent); a read-only one is shown disabled, its value travelling back unchanged, which
 * the server accepts (a change it refuses with 403).
 */
export function withFieldRights<T>(uiSchema: UiSchema<T>, rights: FieldRights | undefined): UiSchema<T> {
  if (!rights || (rights.hidden.length === 0 && rights.readOnly.length === 0)) return uiSchema;
  const ui: Record<string, unknown> = { ...uiSchema };
  for (const name of rights.readOnly) {
    ui[name] = {
      ...((ui[name] as Record<string, unknown> | undefined) ?? {}),
      'ui:disabled': true,
      'ui:readonly': true,
    };
  }
  for (const name of rights.hidden) ui[name] = { 'ui:widget': 'hidden' };
  return ui as UiSchema<T>;
}

/** The form values without the fields the caller's roles hide (a default the form filled in). */
export function fieldsSent<T extends Record<string, unknown>>(values: T, rights: FieldRights | undefined): T {
  if (!rights || rights.hidden.length === 0) return values;
  const hidden = new Set(rights.hidden);
  return Object.fromEntries(Object.entries(values).filter(([name]) => !hidden.has(name))) as T;
}

/** Whether a list column shows: a field the roles hide is left out (its cells would be empty). */
export function isShownField(rights: FieldRights | undefined, field: string): boolean {
  return !rights?.hidden.includes(field);
}
