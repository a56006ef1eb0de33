import { entityTitleKey, fieldTitleKeys, type EntityDef, type FieldDef } from '../../engine/index.js';
import type { Localizer } from './i18n.js';

export function entityTitle(l10n: Localizer, entity: EntityDef): string {
  return l10n.find([entityTitleKey(entity)]) ?? entity.title;
}

export function fieldTitle(l10n: Localizer, entity: EntityDef, field: FieldDef): string {
  return l10n.find(fieldTitleKeys(entity, field)) ?? field.schema.title ?? field.name;
}
