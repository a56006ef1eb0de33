import { entityTitleKey, fieldTitleKeys, type EntityDef, type FieldDef } from '../../engine/index.js';
import type { Localizer } from './i18n.js';

/** Titles come from the locale files, else from the schema's own titles (a designed form's), else its title. */
export function entityTitle(l10n: Localizer, entity: EntityDef): string {
  return (
    l10n.find([entityTitleKey(entity)]) ?? entity.schema['x-ui']?.titles?.[l10n.language] ?? entity.title
  );
}

export function fieldTitle(l10n: Localizer, entity: EntityDef, field: FieldDef): string {
  return (
    l10n.find(fieldTitleKeys(entity, field)) ??
    field.schema['x-ui']?.titles?.[l10n.language] ??
    field.schema.title ??
    field.name
  );
}
