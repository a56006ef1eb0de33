import { fileFieldUse, type FileFieldUse } from './file-fields.js';
import type { DetailDef, EntityDef, FieldDef, ListDisplay } from './types.js';

/** i18n keys for an entity's title and fields (locales/<lang>.json). */
export function entityTitleKey(entity: EntityDef): string {
  return `entities.${entity.name}.title`;
}

export function fieldTitleKeys(entity: EntityDef, field: FieldDef): string[] {
  return field.isSystem
    ? [`entities.${entity.name}.fields.${field.name}`, `entities._common.fields.${field.name}`]
    : [`entities.${entity.name}.fields.${field.name}`];
}

/** Columns of the entity's table an endpoint may return: everything but secrets and detail rows. */
export function readableFields(entity: EntityDef): FieldDef[] {
  return entity.fields.filter((field) => !field.isSecret && !field.detail);
}

/**
 * The fields stored in the entity's own table (detail rows live in child tables, a virtual
 * computed field is computed when read).
 */
export function columnFields(entity: EntityDef): FieldDef[] {
  return entity.fields.filter((field) => !field.detail && !isVirtualField(field));
}

/** A computed field without a column (x-computed without stored). */
export const isVirtualField = (field: FieldDef): boolean =>
  field.computed !== undefined && field.computed.stored !== true;

/** The detail (x-detail) fields of an entity, each with its child table. */
export function detailFields(entity: EntityDef): (FieldDef & { detail: DetailDef })[] {
  return entity.fields.filter(
    (field): field is FieldDef & { detail: DetailDef } => field.detail !== undefined,
  );
}

/**
 * The master column that ties a sub-table's lines to their master row in the export's detail
 * sheets, the import template and the import: the entity's label when an import can give it,
 * else its first field an import gives (text first). A designed form whose label is its generated
 * key (no text field) would otherwise be tied by a column no import reads.
 */
export function detailTieField(entity: EntityDef): FieldDef {
  const label = entity.fieldsByName.get(entity.label) ?? entity.key;
  const given = (field: FieldDef): boolean =>
    !field.isReadOnly && !field.isSystem && !field.auto && !field.detail && field !== entity.key;
  if (given(label)) return label;
  const fields = entity.fields.filter(given);
  return fields.find((field) => field.type === 'string' && !field.dict && !field.ref) ?? fields[0] ?? label;
}

export interface ListColumn {
  field: string;
  titleKeys: string[];
  fallbackTitle: string;
  width?: number;
  isSortable: boolean;
  fixed?: 'left' | 'right';
  dict?: string;
  ref?: string;
  format?: string;
  /** How the cell shows a value (x-list.format). */
  display?: ListDisplay;
  /** Unit after the value (x-list.unit), an i18n key under units. */
  unit?: string;
  /** A file field (x-ui upload / image holding file ids): shown by name or thumbnail. */
  file?: FileFieldUse;
  isVisible: boolean;
}

/** The list columns of the generated list screen, in schema order. */
export function listColumns(entity: EntityDef): ListColumn[] {
  return readableFields(entity)
    .filter((field) => field.name !== 'tenantCode' && field.name !== 'version')
    .map((field) => {
      const hints = field.schema['x-list'] ?? {};
      const column: ListColumn = {
        field: field.name,
        titleKeys: fieldTitleKeys(entity, field),
        fallbackTitle: field.schema.title ?? field.name,
        isSortable: field.isSortable,
        // Shown by default (x-list.visible, else entity.ts's rule); a hidden column can still be
        // shown from the column settings, without a sorter unless its schema gives it one.
        isVisible: field.isListedByDefault,
      };
      if (hints.width !== undefined) column.width = hints.width;
      if (hints.fixed) column.fixed = hints.fixed;
      if (field.dict) column.dict = field.dict;
      if (field.ref) column.ref = field.ref;
      if (field.schema.format) column.format = field.schema.format;
      if (hints.format) column.display = hints.format;
      if (hints.unit) column.unit = hints.unit;
      const file = fileFieldUse(field);
      if (file) column.file = file;
      return column;
    });
}

/** Export columns: every readable field but the bookkeeping ones nobody reads in a spreadsheet. */
export function exportColumns(entity: EntityDef): ListColumn[] {
  return listColumns(entity).filter((column) => column.field !== 'updatedBy');
}

/**
 * A secret (x-secret) the server stores hashed (scrypt). An adopted table's secrets
 * (x-entity.adoption) are the other application's: written as given (that application's own
 * hash, a password it reads back), never hashed in a form it could not check, and never read out.
 */
export function isHashedSecret(entity: EntityDef, field: FieldDef): boolean {
  const options = entity.schema['x-entity'];
  return field.isSecret && !(options.adopt === true && options.adoption !== undefined);
}
