import { decimalOf, isInt64 } from './decimal.js';
import { fieldTitleKeys } from './columns.js';
import { holdsFileIds } from './file-fields.js';
import { boundedSchema } from './validators.js';
import type { EntityDef, FieldDef, FieldSchema, FilterKind } from './types.js';

/**
 * What the generated back-office screens derive from an entity: the form's JSON Schema and
 * uiSchema (rendered by RJSF, validated by the same ajv options as the server) and the list's
 * filter bar. Pure functions, shared by the browser and the tests.
 */

export type FormMode = 'create' | 'update';

/** The $id of a generated form's schema, and the name the server exports its validator under. */
export function formSchemaId(entity: string, mode: FormMode): string {
  return `${entity}_${mode}`;
}

/** The suffix of the "confirm" field a create form adds after a field with x-ui.confirm. */
export const CONFIRM_SUFFIX = 'Confirm';

/** The widgets the generated form registers (RJSF widget names). */
export type FormWidget =
  | 'text'
  | 'textarea'
  | 'password'
  | 'updown'
  | 'switch'
  | 'date'
  | 'datetime'
  | 'dictSelect'
  | 'refSelect'
  | 'refTreeSelect'
  | 'select'
  | 'image'
  | 'upload'
  | 'richtext'
  | 'icon'
  | 'json'
  | 'recipients'
  | 'hidden'
  | 'dateRange'
  | 'detailTable';

/** A column of a detail field's editable table: a row property with the widget its type asks for. */
export interface DetailColumn {
  name: string;
  titleKeys: string[];
  fallbackTitle: string;
  widget: FormWidget;
  options: FormFieldOptions;
  isRequired: boolean;
}

export interface FormFieldOptions {
  /** Grid columns out of 24. */
  span: number;
  dict?: string;
  /** The referenced entity of refSelect / refTreeSelect. */
  ref?: string;
  /** The value meaning "no parent" of a tree parent field. */
  root?: string | number;
  isMultiple?: boolean;
  /** dictSelect shown as radio buttons or checkboxes instead of a select. */
  display?: 'radio' | 'checkboxes';
  rows?: number;
  /** Name of the field this one confirms (create forms only). */
  confirms?: string;
  /** detailTable: the columns of a row. */
  columns?: DetailColumn[];
  /**
   * updown of an exact number (format decimal or int64): the value stays text (InputNumber in
   * stringMode, never a JavaScript number), with this many digits after the point (the scale).
   */
  exact?: { precision: number; min?: string; max?: string };
}

export interface FormField {
  name: string;
  /** i18n keys of the label, most specific first, and the schema's title as the fallback. */
  titleKeys: string[];
  fallbackTitle: string;
  widget: FormWidget;
  options: FormFieldOptions;
}

const LONG_TEXT = 255;
const FULL_ROW_WIDGETS: ReadonlySet<FormWidget> = new Set([
  'textarea',
  'json',
  'image',
  'upload',
  'richtext',
  'recipients',
  'detailTable',
]);

function isEditable(field: FieldDef, mode: FormMode): boolean {
  if (field.isReadOnly || field.isSystem) return false;
  if (mode === 'update' && field.schema['x-ui']?.createOnly === true) return false;
  return field.schema['x-ui']?.widget !== 'hidden' || mode === 'create';
}

function widgetOf(entity: EntityDef, field: FieldDef): FormWidget {
  const schema = field.schema;
  const hinted = schema['x-ui']?.widget;
  if (field.detail) return 'detailTable';
  const isTreeRef =
    field.ref !== undefined && field.ref === entity.name && entity.tree?.parent === field.name;
  switch (hinted) {
    case 'textarea':
      return 'textarea';
    case 'richtext':
      return 'richtext';
    case 'upload':
      return holdsFileIds(schema) ? 'upload' : 'text';
    case 'password':
      return 'password';
    case 'switch':
      return 'switch';
    case 'number':
      return 'updown';
    case 'date':
      return 'date';
    case 'datetime':
      return 'datetime';
    case 'image':
      return 'image';
    case 'icon':
      return 'icon';
    case 'json':
      return 'json';
    case 'recipients':
      return 'recipients';
    case 'hidden':
      return 'hidden';
    case 'dateRange':
      return 'dateRange';
    case 'treeSelect':
      return field.ref ? 'refTreeSelect' : 'text';
    case 'select':
    case 'radio':
    case 'checkboxes':
      if (field.dict) return 'dictSelect';
      return field.ref ? 'refSelect' : 'select';
    case 'text':
    case undefined:
      break;
  }
  if (field.dict) return 'dictSelect';
  if (field.ref) return isTreeRef ? 'refTreeSelect' : 'refSelect';
  if (schema.enum) return 'select';
  if (schema.type === 'boolean') return 'switch';
  if (schema.type === 'integer' || schema.type === 'number') return 'updown';
  if (decimalOf(schema) || isInt64(schema)) return 'updown';
  if (schema.type === 'object') return 'json';
  if (schema.type === 'array') return 'json';
  if (schema.format === 'date-time') return 'datetime';
  if (schema.format === 'date') return 'date';
  if ((schema.maxLength ?? 0) > LONG_TEXT) return 'textarea';
  return 'text';
}

function optionsOf(entity: EntityDef, field: FieldDef, widget: FormWidget): FormFieldOptions {
  const hints = field.schema['x-ui'] ?? {};
  const options: FormFieldOptions = { span: hints.span ?? (FULL_ROW_WIDGETS.has(widget) ? 24 : 12) };
  if (field.dict) options.dict = field.dict;
  if (field.ref) options.ref = field.ref;
  if (field.ref === entity.name && entity.tree?.parent === field.name) options.root = entity.tree.root;
  if (field.type === 'array') options.isMultiple = true;
  if (hints.widget === 'radio' || hints.widget === 'checkboxes') options.display = hints.widget;
  if (hints.rows !== undefined) options.rows = hints.rows;
  const decimal = decimalOf(field.schema);
  if (decimal)
    options.exact = {
      precision: decimal.scale,
      ...(decimal.minimum !== undefined ? { min: decimal.minimum } : {}),
      ...(decimal.maximum !== undefined ? { max: decimal.maximum } : {}),
    };
  else if (isInt64(field.schema)) options.exact = { precision: 0 };
  if (field.detail) {
    delete options.isMultiple;
    options.columns = field.detail.fields.map((column) => {
      const columnWidget = widgetOf(entity, column);
      return {
        name: column.name,
        titleKeys: [`entities.${entity.name}.details.${field.name}.${column.name}`],
        fallbackTitle: column.schema.title ?? column.name,
        widget: columnWidget,
        options: optionsOf(entity, column, columnWidget),
        isRequired: column.isRequired,
      };
    });
  }
  return options;
}

/** The fields of the form, in display order (x-ui.order first, then schema order). */
export function formFields(entity: EntityDef, mode: FormMode): FormField[] {
  const editable = entity.fields
    .map((field, index) => ({ field, index }))
    .filter(({ field }) => isEditable(field, mode))
    .sort(
      (a, b) =>
        (a.field.schema['x-ui']?.order ?? Number.MAX_SAFE_INTEGER) -
          (b.field.schema['x-ui']?.order ?? Number.MAX_SAFE_INTEGER) || a.index - b.index,
    );
  const fields: FormField[] = [];
  for (const { field } of editable) {
    const widget = widgetOf(entity, field);
    const formField: FormField = {
      name: field.name,
      titleKeys: fieldTitleKeys(entity, field),
      fallbackTitle: field.schema.title ?? field.name,
      widget,
      options: optionsOf(entity, field, widget),
    };
    fields.push(formField);
    if (mode === 'create' && field.schema['x-ui']?.confirm === true) {
      fields.push({
        name: `${field.name}${CONFIRM_SUFFIX}`,
        titleKeys: ['admin.form.confirmField'],
        fallbackTitle: `Confirm ${formField.fallbackTitle}`,
        widget,
        options: { ...formField.options, confirms: field.name },
      });
    }
  }
  return fields;
}

/**
 * The fields the server fills (x-auto: who published, when; x-computed): never in the form's
 * schema, since no client sets them, but shown read-only on the form (and wherever a record is
 * shown whole), in form order, with the widget their type asks for.
 */
export function autoFields(entity: EntityDef): FormField[] {
  return entity.fields
    .map((field, index) => ({ field, index }))
    .filter(({ field }) => (field.auto !== undefined || field.computed !== undefined) && !field.isSecret)
    .sort(
      (a, b) =>
        (a.field.schema['x-ui']?.order ?? Number.MAX_SAFE_INTEGER) -
          (b.field.schema['x-ui']?.order ?? Number.MAX_SAFE_INTEGER) || a.index - b.index,
    )
    .map(({ field }) => {
      const widget = widgetOf(entity, field);
      return {
        name: field.name,
        titleKeys: fieldTitleKeys(entity, field),
        fallbackTitle: field.schema.title ?? field.name,
        widget,
        options: optionsOf(entity, field, widget),
      };
    });
}

/**
 * The JSON Schema the form validates: the writable fields with the server's own rules, required
 * as the entity says in both modes (an edit may not clear a required field); confirm fields copy
 * the rules of the field they confirm. The key and version of an update travel beside it.
 */
export function formSchemaOf(entity: EntityDef, mode: FormMode): Record<string, unknown> {
  const properties: Record<string, FieldSchema> = {};
  const required: string[] = [];
  for (const formField of formFields(entity, mode)) {
    const source = entity.fieldsByName.get(formField.options.confirms ?? formField.name);
    if (!source) continue;
    // A free-form object's depth limit (if/then) stays with the server: RJSF resolves every `if`
    // against a validator of its own, which the precompiled module does not hold.
    const {
      default: defaultValue,
      readOnly: _readOnly,
      if: _if,
      then: _then,
      ...rest
    } = boundedSchema(source.schema) as FieldSchema & { if?: unknown; then?: unknown };
    const schema: FieldSchema =
      mode === 'create' && defaultValue !== undefined ? { ...rest, default: defaultValue } : rest;
    properties[formField.name] = formField.options.confirms ? { ...schema, writeOnly: true } : schema;
    if (source.isRequired) required.push(formField.name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** RJSF's uiSchema for the form fields. */
export function uiSchemaOf(entity: EntityDef, mode: FormMode): Record<string, unknown> {
  const fields = formFields(entity, mode);
  const ui: Record<string, unknown> = { 'ui:order': [...fields.map((field) => field.name), '*'] };
  for (const field of fields) {
    const placeholder = entity.fieldsByName.get(field.name)?.schema['x-ui']?.placeholder;
    if (field.widget === 'detailTable') {
      // An array of objects: a field of its own (it gets the rows' errors, a widget would not).
      ui[field.name] = { 'ui:field': 'detailTable', 'ui:options': field.options };
      continue;
    }
    ui[field.name] = {
      'ui:widget': field.widget,
      'ui:options': { ...field.options, ...(placeholder ? { placeholder } : {}) },
    };
  }
  return ui;
}

/** Whether the confirm fields of a create form match the fields they confirm. */
export function mismatchedConfirmations(
  entity: EntityDef,
  mode: FormMode,
  values: Readonly<Record<string, unknown>>,
): string[] {
  return formFields(entity, mode)
    .filter((field) => field.options.confirms !== undefined)
    .filter((field) => (values[field.name] ?? '') !== (values[field.options.confirms ?? ''] ?? ''))
    .map((field) => field.name);
}

/** The body of an add request: the form values without the confirm fields. */
export function withoutConfirmations(
  entity: EntityDef,
  mode: FormMode,
  values: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const confirmFields = new Set(
    formFields(entity, mode)
      .filter((field) => field.options.confirms !== undefined)
      .map((field) => field.name),
  );
  return Object.fromEntries(Object.entries(values).filter(([name]) => !confirmFields.has(name)));
}

export interface ListFilter {
  field: string;
  kind: FilterKind;
  titleKeys: string[];
  fallbackTitle: string;
  dict?: string;
  ref?: string;
  enum?: unknown[];
}

/**
 * The filter bar of the list: every filterable field shown as a column (x-list.filter may add a
 * hidden one or take one away), then the creation date range.
 */
export function listFilters(entity: EntityDef): ListFilter[] {
  const filters: ListFilter[] = [];
  for (const field of entity.fields) {
    // The rule is entity.ts's (isInFilterBar); ddl.ts listIndexes says which have an index.
    if (!field.filter || !field.isInFilterBar) continue;
    const filter: ListFilter = {
      field: field.name,
      kind: field.filter,
      titleKeys: fieldTitleKeys(entity, field),
      fallbackTitle: field.schema.title ?? field.name,
    };
    if (field.dict) filter.dict = field.dict;
    if (field.ref) filter.ref = field.ref;
    const values = field.schema.enum ?? field.schema.items?.enum;
    if (values) filter.enum = values;
    filters.push(filter);
  }
  return filters;
}

/** How a person gives a field its value: typed in, or chosen (selects, dates, switches, trees). */
export type FieldEntry = 'input' | 'choice';

const CHOSEN_WIDGETS: ReadonlySet<FormWidget> = new Set([
  'switch',
  'date',
  'datetime',
  'dictSelect',
  'refSelect',
  'refTreeSelect',
  'select',
  'recipients',
  'upload',
  'dateRange',
]);

export function entryOf(widget: FormWidget): FieldEntry {
  return CHOSEN_WIDGETS.has(widget) ? 'choice' : 'input';
}
