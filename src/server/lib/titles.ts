import {
  entityTitleKey,
  fieldTitleKeys,
  formFields,
  type EntityDef,
  type FieldDef,
} from '../../engine/index.js';
import type { Localizer } from './i18n.js';

/** Titles come from the locale files, else from the schema's own titles (a designed form's), else its title. */
export function entityTitle(l10n: Localizer, entity: EntityDef): string {
  return (
    l10n.find([entityTitleKey(entity)]) ?? entity.schema['x-ui']?.titles?.[l10n.language] ?? entity.title
  );
}

export function fieldTitle({
  l10n,
  entity,
  field,
}: {
  l10n: Localizer;
  entity: EntityDef;
  field: FieldDef;
}): string {
  return (
    l10n.find(fieldTitleKeys(entity, field)) ??
    field.schema['x-ui']?.titles?.[l10n.language] ??
    field.schema.title ??
    field.name
  );
}

/**
 * A sub-table column's title: its locale key (a schema file's), else the designer's titles in the
 * column's schema, else its title or name. Export, import template and import read the same one.
 */
export function detailColumnTitle({
  l10n,
  entity,
  detailFieldName,
  column,
}: {
  l10n: Localizer;
  entity: EntityDef;
  /** The detail (sub-table) field of `entity` the column belongs to. */
  detailFieldName: string;
  /** The column: one of that field's detail fields. */
  column: FieldDef;
}): string {
  const columns = formFields(entity, 'create').find((field) => field.name === detailFieldName)?.options
    .columns;
  const keys = columns?.find((entry) => entry.name === column.name)?.titleKeys ?? [];
  return (
    l10n.find(keys) ?? column.schema['x-ui']?.titles?.[l10n.language] ?? column.schema.title ?? column.name
  );
}
