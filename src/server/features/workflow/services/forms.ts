import { prepareInput } from '../../../../engine/index.js';
import type { WfTaskForm } from '../../../../engine/api-types.js';
import type { AppContext } from '../../../lib/context.js';
import type { Localizer } from '../../../lib/i18n.js';

/**
 * Forms of a process: a formKey naming an entity schema. Submitted form data is checked with
 * the same validators as the entity's CRUD API (a bad field is a 400 naming it) and kept as
 * variables. A formKey that names no entity (a designed form, later) is not checked here.
 */

export function formInfo(ctx: AppContext, formKey: string | null | undefined): WfTaskForm | null {
  if (!formKey) return null;
  const entity = ctx.registry.get(formKey);
  return { formKey, schema: entity ? (entity.schema as unknown as Record<string, unknown>) : null };
}

/** The form data as the entity's validators accept it (400 naming each bad field). */
export function checkedFormData({
  ctx,
  l10n,
  formKey,
  formData,
}: {
  ctx: AppContext;
  l10n: Localizer;
  formKey: string | null | undefined;
  formData: Record<string, unknown> | undefined;
}): Record<string, unknown> {
  if (!formData) return {};
  const entity = formKey ? ctx.registry.get(formKey) : undefined;
  if (!entity) return formData;
  return prepareInput(entity, ctx.registry.validators(entity), formData, 'create', l10n.t).values;
}
