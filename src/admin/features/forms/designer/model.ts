import type {
  DecimalSpec,
  EntitySchema,
  FieldCondition,
  FieldSchema,
  FormUiHints,
  LayoutItem,
  Titles,
  Widget,
} from '../../../../engine/types.js';
import { listUseOf, type ListUse } from '../../../../engine/list-use.js';

/**
 * The form designer's model: an entity schema seen as a tree of items on a canvas (fields, grid
 * rows with 24-column spans, groups, dividers, static texts). Pure functions, so that every
 * change is a new model (undo keeps the old ones) and the conversion is unit-tested:
 * schema → model → schema gives back every schema of schemas/ unchanged.
 *
 * Where things go in the schema: a field is a property (its rules are JSON Schema, its widget and
 * labels x-ui hints); the layout and the form's settings are the root x-ui (the engine validates
 * records without them); a visibility condition is one root allOf entry (if / then / else).
 */

/** A designed field's schema: the engine's field vocabulary plus keywords it does not type (x-detail). */
export type DesignFieldSchema = FieldSchema & Record<string, unknown>;

/** When a field is shown: while another field equals a value. */
export interface VisibleWhen {
  field: string;
  equals: string | number | boolean;
}

export interface FieldNode {
  kind: 'field';
  id: string;
  name: string;
  schema: DesignFieldSchema;
  isRequired: boolean;
  visibleWhen?: VisibleWhen;
}

export interface ColumnNode {
  id: string;
  span: number;
  items: DesignNode[];
}

export interface GridNode {
  kind: 'grid';
  id: string;
  columns: ColumnNode[];
}

export interface GroupNode {
  kind: 'group';
  id: string;
  title?: string;
  titles?: Titles;
  items: DesignNode[];
}

export interface DividerNode {
  kind: 'divider';
  id: string;
  title?: string;
  titles?: Titles;
}

export interface TextNode {
  kind: 'text';
  id: string;
  text: string;
  titles?: Titles;
}

export type DesignNode = FieldNode | GridNode | GroupNode | DividerNode | TextNode;
export type LayoutKind = 'grid' | 'group' | 'divider' | 'text';

/** The form settings of the root x-ui (everything but the layout). */
export type FormSettings = Omit<FormUiHints, 'items'>;

export interface DesignModel {
  /** The schema the model came from: its other keywords and their order are written back as they were. */
  root: Readonly<Record<string, unknown>>;
  items: DesignNode[];
  form: FormSettings;
  /** The order of the schema's required list, kept so that an unchanged form writes it unchanged. */
  requiredOrder: string[];
}

/** The id of the canvas itself as a container. */
export const ROOT_ID = 'root';

let nextId = 0;
/** A node id, unique in this page (ids are not stored in the schema). */
export function newId(prefix = 'n'): string {
  nextId += 1;
  return `${prefix}${nextId}`;
}

// Palette ---------------------------------------------------------------------------------------

export const FIELD_KINDS = [
  'text',
  'textarea',
  'number',
  'integer',
  'money',
  'select',
  'radio',
  'checkbox',
  'switch',
  'date',
  'datetime',
  'dateRange',
  'region',
  'org',
  'user',
  'ref',
  'richtext',
  'upload',
  'image',
  'subtable',
] as const;
export type FieldKind = (typeof FIELD_KINDS)[number] | 'other';

/**
 * The schema's own title (its English fallback: docs/architecture.md, The engine) of a new field; the
 * designer adds the title in the user's language beside it (x-ui.titles).
 */
export const ENGLISH_TITLES: Record<Exclude<FieldKind, 'other'>, string> = {
  text: 'Text',
  textarea: 'Long text',
  number: 'Number',
  integer: 'Integer',
  money: 'Amount',
  select: 'Choice',
  radio: 'Option',
  checkbox: 'Options',
  switch: 'Switch',
  date: 'Date',
  datetime: 'Date and time',
  dateRange: 'Date range',
  region: 'Region',
  org: 'Organisation',
  user: 'User',
  ref: 'Reference',
  richtext: 'Rich text',
  upload: 'Attachments',
  image: 'Pictures',
  subtable: 'Lines',
};

export const LAYOUT_KINDS: readonly LayoutKind[] = ['grid', 'group', 'divider', 'text'];

const DEFAULT_OPTIONS = ['A', 'B', 'C'];

/** A new money field's digits: 18 in all, 2 after the point (numeric(18,2), as purchase budgets). */
export const MONEY_DECIMAL = { precision: 18, scale: 2 } as const;

/** The schema a palette item puts on the canvas. */
export function paletteSchema(kind: Exclude<FieldKind, 'other'>, title: string): DesignFieldSchema {
  switch (kind) {
    case 'text':
      return { type: 'string', title, maxLength: 100 };
    case 'textarea':
      return { type: 'string', title, maxLength: 2000, 'x-ui': { widget: 'textarea' } };
    case 'number':
      return { type: 'number', title };
    case 'integer':
      return { type: 'integer', title };
    case 'money':
      // An exact decimal: numeric(p,s) in the table, text on the wire, InputNumber in stringMode.
      return { type: 'string', title, format: 'decimal', 'x-decimal': { ...MONEY_DECIMAL } };
    case 'select':
      return { type: 'string', title, enum: [...DEFAULT_OPTIONS], 'x-ui': { widget: 'select' } };
    case 'radio':
      return { type: 'string', title, enum: [...DEFAULT_OPTIONS], 'x-ui': { widget: 'radio' } };
    case 'checkbox':
      return {
        type: 'array',
        title,
        items: { type: 'string', enum: [...DEFAULT_OPTIONS] },
        uniqueItems: true,
        'x-ui': { widget: 'checkboxes' },
      };
    case 'switch':
      return { type: 'boolean', title, 'x-ui': { widget: 'switch' } };
    case 'date':
      return { type: 'string', title, format: 'date' };
    case 'datetime':
      return { type: 'string', title, format: 'date-time' };
    case 'dateRange':
      return {
        type: 'array',
        title,
        items: { type: 'string', format: 'date' },
        minItems: 2,
        maxItems: 2,
        'x-ui': { widget: 'dateRange' },
      };
    case 'region':
      return { type: 'string', title, maxLength: 20, 'x-ref': 'sysregion', 'x-ui': { widget: 'treeSelect' } };
    case 'org':
      return { type: 'integer', title, 'x-ref': 'sysorg', 'x-ui': { widget: 'treeSelect' } };
    case 'user':
      return { type: 'integer', title, 'x-ref': 'sysuser' };
    case 'ref':
      return { type: 'integer', title, 'x-ref': 'sysrole' };
    case 'richtext':
      return { type: 'string', title, maxLength: 100000, 'x-ui': { widget: 'richtext' } };
    case 'upload':
      return { type: 'array', title, items: { type: 'integer' }, maxItems: 10, 'x-ui': { widget: 'upload' } };
    case 'image':
      return { type: 'array', title, items: { type: 'integer' }, maxItems: 10, 'x-ui': { widget: 'image' } };
    case 'subtable':
      // The master-detail vocabulary (x-detail): rows of objects kept in a child table.
      return {
        type: 'array',
        title,
        'x-detail': {},
        items: {
          type: 'object',
          properties: { name: { type: 'string', title: 'Name', maxLength: 100 } },
          required: ['name'],
        },
      } as unknown as DesignFieldSchema;
  }
}

/** The digits of a money field (x-decimal): the precision at least 1 and the scale within it. */
export function withDecimalDigits(
  schema: DesignFieldSchema,
  change: Partial<DecimalSpec>,
): DesignFieldSchema {
  const current = schema['x-decimal'] ?? { ...MONEY_DECIMAL };
  const whole = (value: number | undefined, fallback: number): number =>
    value === undefined || !Number.isFinite(value) ? fallback : Math.floor(value);
  const precision = Math.max(1, whole(change.precision, current.precision));
  const scale = Math.min(precision, Math.max(0, whole(change.scale, current.scale)));
  const spec: DecimalSpec = { ...current, precision, scale };
  for (const bound of ['minimum', 'maximum'] as const) {
    const value = bound in change ? change[bound] : current[bound];
    if (value === undefined || value === '') delete spec[bound];
    else spec[bound] = value;
  }
  return { ...schema, 'x-decimal': spec };
}

/** What kind of palette item a field is (its icon, label and property set on the canvas). */
export function kindOf(schema: DesignFieldSchema): FieldKind {
  const widget = schema['x-ui']?.widget;
  const ref = schema['x-ref'];
  if (schema['x-detail'] !== undefined) return 'subtable';
  if (ref === 'sysregion') return 'region';
  if (ref === 'sysorg') return 'org';
  if (ref === 'sysuser' && schema.type !== 'array') return 'user';
  if (ref) return 'ref';
  if (widget === 'richtext' || widget === 'upload' || widget === 'image' || widget === 'dateRange')
    return widget;
  if (widget === 'textarea') return 'textarea';
  if (
    (widget === 'text' || widget === 'password') &&
    schema.type === 'string' &&
    !schema.enum &&
    !schema['x-dict']
  )
    return 'text';
  if (schema.type === 'array') {
    if (widget === 'checkboxes' || schema.items?.enum || schema['x-dict']) return 'checkbox';
    return 'other';
  }
  if (widget === 'radio') return 'radio';
  if (schema.enum || schema['x-dict']) return 'select';
  if (schema.type === 'boolean') return 'switch';
  if (schema.type === 'integer') return 'integer';
  if (schema.type === 'number') return 'number';
  if (schema.type === 'object') return 'other';
  if (schema.format === 'decimal') return 'money';
  if (schema.format === 'date') return 'date';
  if (schema.format === 'date-time') return 'datetime';
  if ((schema.maxLength ?? 0) > 255) return 'textarea';
  return 'text';
}

/**
 * The widgets a field may switch between without a change of its type (组件类型 in the property
 * panel): plain text as a single line, a text area, rich text or a password; a choice of one as
 * a select or radio buttons; a choice of several as checkboxes or a multiple select; files as a
 * list or pictures. Other fields have one widget only (none offered).
 */
export function widgetChoices(schema: DesignFieldSchema): Widget[] {
  if (schema['x-detail'] !== undefined || schema['x-ref'] || schema['x-computed']) return [];
  const hasOptions = (owner: { enum?: unknown[] } | undefined): boolean =>
    owner?.enum !== undefined || schema['x-dict'] !== undefined;
  if (schema.type === 'array') {
    if (hasOptions(schema.items)) return ['checkboxes', 'select'];
    if (schema.items?.type === 'integer' && !schema.items.enum) return ['upload', 'image'];
    return [];
  }
  if (hasOptions(schema)) return schema.type === 'boolean' ? [] : ['select', 'radio'];
  if (schema.type === 'string' && !schema.format) return ['text', 'textarea', 'richtext', 'password'];
  return [];
}

/** The widget a field shows now, among its choices (undefined: it has no choice). */
export function currentWidget(schema: DesignFieldSchema): Widget | undefined {
  const choices = widgetChoices(schema);
  const hinted = schema['x-ui']?.widget;
  if (hinted && choices.includes(hinted)) return hinted;
  if (choices[0] === 'text' && (schema.maxLength ?? 0) > 255) return 'textarea';
  return choices[0];
}

/** The field shown with another widget of its choices (x-ui.widget); its type and rules stay. */
export function withWidget(schema: DesignFieldSchema, widget: Widget): DesignFieldSchema {
  return { ...schema, 'x-ui': { ...schema['x-ui'], widget } };
}

/** A new field of a palette kind, named `<kind><n>` (the first name no field has). */
export function newField(model: DesignModel, kind: Exclude<FieldKind, 'other'>, title: string): FieldNode {
  const names = new Set(fieldNames(model.items));
  let n = 1;
  while (names.has(`${kind}${n}`)) n += 1;
  return {
    kind: 'field',
    id: newId(),
    name: `${kind}${n}`,
    schema: paletteSchema(kind, title),
    isRequired: false,
  };
}

/**
 * A new field of a module's widget (the palette's module widgets, lib/modules.ts WidgetPalette):
 * the widget's schema with `x-ui.widget` its name, named `<widget><n>`.
 */
export function newWidgetField(
  model: DesignModel,
  widget: { name: string; schema: Record<string, unknown> },
  title: string,
): FieldNode {
  const names = new Set(fieldNames(model.items));
  let n = 1;
  while (names.has(`${widget.name}${n}`)) n += 1;
  const schema = widget.schema as DesignFieldSchema;
  return {
    kind: 'field',
    id: newId(),
    name: `${widget.name}${n}`,
    schema: { ...schema, title, 'x-ui': { ...schema['x-ui'], widget: widget.name } } as DesignFieldSchema,
    isRequired: false,
  };
}

/** A new layout item: a grid row starts with two half-width columns. */
export function newLayout(kind: LayoutKind): DesignNode {
  switch (kind) {
    case 'grid':
      return {
        kind,
        id: newId(),
        columns: [
          { id: newId('c'), span: 12, items: [] },
          { id: newId('c'), span: 12, items: [] },
        ],
      };
    case 'group':
      return { kind, id: newId(), title: 'Group', items: [] };
    case 'divider':
      return { kind, id: newId() };
    case 'text':
      return { kind, id: newId(), text: 'Text' };
  }
}

// Schema ⇄ model ---------------------------------------------------------------------------------

/** The condition of a field in the shape the designer writes, or undefined. */
function conditionOf(
  entry: FieldCondition,
): { fields: string[]; when: VisibleWhen; required: string[] } | undefined {
  const [other, test] = Object.entries(entry.if.properties)[0] ?? [];
  if (other === undefined || test === undefined) return undefined;
  const value = test.const;
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return undefined;
  return {
    fields: Object.keys(entry.else.properties),
    when: { field: other, equals: value },
    required: entry.then?.required ?? [],
  };
}

function titledProps(item: { title?: string; titles?: Titles }): { title?: string; titles?: Titles } {
  return {
    ...(item.title !== undefined ? { title: item.title } : {}),
    ...(item.titles !== undefined ? { titles: item.titles } : {}),
  };
}

/** Opens a schema in the designer. */
export function schemaToModel(schema: EntitySchema | Record<string, unknown>): DesignModel {
  const source = schema as EntitySchema;
  const properties = source.properties ?? {};
  const required = new Set(source.required ?? []);
  const conditions = new Map<string, VisibleWhen>();
  for (const entry of source.allOf ?? []) {
    const condition = conditionOf(entry);
    if (!condition) continue;
    for (const field of condition.fields) conditions.set(field, condition.when);
    for (const field of condition.required) required.add(field);
  }
  const fieldNode = (name: string): FieldNode => {
    const when = conditions.get(name);
    return {
      kind: 'field',
      id: newId(),
      name,
      schema: properties[name] as DesignFieldSchema,
      isRequired: required.has(name),
      ...(when ? { visibleWhen: when } : {}),
    };
  };
  const placed = new Set<string>();
  const build = (items: readonly LayoutItem[]): DesignNode[] =>
    items.flatMap((item): DesignNode[] => {
      if (typeof item === 'string') {
        if (!Object.hasOwn(properties, item) || placed.has(item)) return [];
        placed.add(item);
        return [fieldNode(item)];
      }
      switch (item.kind) {
        case 'grid':
          return [
            {
              kind: 'grid',
              id: newId(),
              columns: item.columns.map((column) => ({
                id: newId('c'),
                span: column.span,
                items: build(column.items),
              })),
            },
          ];
        case 'group':
          return [{ kind: 'group', id: newId(), ...titledProps(item), items: build(item.items) }];
        case 'divider':
          return [{ kind: 'divider', id: newId(), ...titledProps(item) }];
        case 'text':
          return [
            { kind: 'text', id: newId(), text: item.text, ...(item.titles ? { titles: item.titles } : {}) },
          ];
      }
      return [];
    });
  const { items: layout, ...form } = source['x-ui'] ?? {};
  const items = build(layout ?? []);
  for (const name of Object.keys(properties)) if (!placed.has(name)) items.push(fieldNode(name));
  return {
    root: schema as Record<string, unknown>,
    items,
    form,
    requiredOrder: [...(source.required ?? [])],
  };
}

/** Every field of a tree of nodes, in canvas order. */
export function fieldNodes(items: readonly DesignNode[]): FieldNode[] {
  const fields: FieldNode[] = [];
  const visit = (nodes: readonly DesignNode[]): void => {
    for (const node of nodes) {
      if (node.kind === 'field') fields.push(node);
      else if (node.kind === 'grid') for (const column of node.columns) visit(column.items);
      else if (node.kind === 'group') visit(node.items);
    }
  };
  visit(items);
  return fields;
}

export function fieldNames(items: readonly DesignNode[]): string[] {
  return fieldNodes(items).map((field) => field.name);
}

function hasLayoutNodes(items: readonly DesignNode[]): boolean {
  return items.some((node) => node.kind !== 'field');
}

function layoutOf(items: readonly DesignNode[]): LayoutItem[] {
  return items.map((node): LayoutItem => {
    switch (node.kind) {
      case 'field':
        return node.name;
      case 'grid':
        return {
          kind: 'grid',
          columns: node.columns.map((column) => ({ span: column.span, items: layoutOf(column.items) })),
        };
      case 'group':
        return { kind: 'group', ...titledProps(node), items: layoutOf(node.items) };
      case 'divider':
        return { kind: 'divider', ...titledProps(node) };
      case 'text':
        return { kind: 'text', text: node.text, ...(node.titles ? { titles: node.titles } : {}) };
    }
  });
}

/** The keys a designed form's schema is written with when its source had none of them. */
const KEY_ORDER = [
  '$schema',
  'title',
  'description',
  'type',
  'x-entity',
  'x-ui',
  'required',
  'additionalProperties',
  'properties',
  'allOf',
];

/** Writes the model back as an entity schema (the source's other keywords kept in their order). */
export function modelToSchema(model: DesignModel): EntitySchema {
  const fields = fieldNodes(model.items);
  const properties: Record<string, DesignFieldSchema> = {};
  for (const field of fields) properties[field.name] = field.schema;
  const alwaysRequired = new Set(fields.filter((f) => f.isRequired && !f.visibleWhen).map((f) => f.name));
  const required = [
    ...model.requiredOrder.filter((name) => alwaysRequired.has(name)),
    ...fields
      .map((f) => f.name)
      .filter((name) => alwaysRequired.has(name) && !model.requiredOrder.includes(name)),
  ];
  const conditions: FieldCondition[] = fields.flatMap((field): FieldCondition[] => {
    const when = field.visibleWhen;
    if (!when) return [];
    return [
      {
        if: { properties: { [when.field]: { const: when.equals } }, required: [when.field] },
        ...(field.isRequired ? { then: { required: [field.name] } } : {}),
        else: { properties: { [field.name]: false } },
      },
    ];
  });
  const formUi: FormUiHints = {
    ...model.form,
    ...(hasLayoutNodes(model.items) ? { items: layoutOf(model.items) } : {}),
  };
  const computed: Record<string, unknown> = {
    properties,
    required: required.length > 0 || Object.hasOwn(model.root, 'required') ? required : undefined,
    'x-ui': Object.keys(formUi).length > 0 ? formUi : undefined,
    allOf: conditions.length > 0 ? conditions : undefined,
  };
  const result: Record<string, unknown> = {};
  const keys = [...Object.keys(model.root), ...KEY_ORDER.filter((key) => !Object.hasOwn(model.root, key))];
  for (const key of keys) {
    const value = Object.hasOwn(computed, key) ? computed[key] : model.root[key];
    if (value !== undefined) result[key] = value;
  }
  return result as unknown as EntitySchema;
}

/** A new, empty designed form: a generated key and one text field. */
export function blankSchema(name = 'myform'): EntitySchema {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'My form',
    // a new form is named in the designer's language too (issue 40.11)
    'x-ui': { titles: { zh: '我的表单', tw: '我的表單' } },
    type: 'object',
    'x-entity': { api: `form/${name}`, table: `form_${name}`, key: 'id', label: 'id' },
    additionalProperties: false,
    properties: { id: { type: 'integer', title: 'ID', readOnly: true } },
  };
}

// Edits ------------------------------------------------------------------------------------------

export interface Located {
  node: DesignNode;
  /** The id of the container holding it: ROOT_ID, a column or a group. */
  containerId: string;
  index: number;
}

/** Where a node is in the tree. */
export function locate(items: readonly DesignNode[], id: string, containerId = ROOT_ID): Located | undefined {
  for (const [index, node] of items.entries()) {
    if (node.id === id) return { node, containerId, index };
    if (node.kind === 'grid') {
      for (const column of node.columns) {
        const found = locate(column.items, id, column.id);
        if (found) return found;
      }
    } else if (node.kind === 'group') {
      const found = locate(node.items, id, node.id);
      if (found) return found;
    }
  }
  return undefined;
}

/** The items of a container (undefined when there is no such container). */
export function containerItems(
  items: readonly DesignNode[],
  containerId: string,
): readonly DesignNode[] | undefined {
  if (containerId === ROOT_ID) return items;
  for (const node of items) {
    if (node.kind === 'grid') {
      for (const column of node.columns) {
        if (column.id === containerId) return column.items;
        const found = containerItems(column.items, containerId);
        if (found) return found;
      }
    } else if (node.kind === 'group') {
      if (node.id === containerId) return node.items;
      const found = containerItems(node.items, containerId);
      if (found) return found;
    }
  }
  return undefined;
}

/** The tree with one container's items replaced (untouched branches shared). */
function withContainer(
  items: DesignNode[],
  containerId: string,
  change: (items: DesignNode[]) => DesignNode[],
): DesignNode[] {
  if (containerId === ROOT_ID) return change(items);
  let isChanged = false;
  const next = items.map((node): DesignNode => {
    if (node.kind === 'grid') {
      const columns = node.columns.map((column) => {
        const inner =
          column.id === containerId ? change(column.items) : withContainer(column.items, containerId, change);
        if (inner === column.items) return column;
        isChanged = true;
        return { ...column, items: inner };
      });
      return columns.some((column, index) => column !== node.columns[index]) ? { ...node, columns } : node;
    }
    if (node.kind === 'group') {
      const inner =
        node.id === containerId ? change(node.items) : withContainer(node.items, containerId, change);
      if (inner === node.items) return node;
      isChanged = true;
      return { ...node, items: inner };
    }
    return node;
  });
  return isChanged ? next : items;
}

/** Whether a node may go into a container: a layout item never into itself. */
function fits(node: DesignNode, containerId: string): boolean {
  if (containerId === ROOT_ID) return true;
  return !locate([node], containerId) && node.id !== containerId;
}

export function insertNode(
  model: DesignModel,
  containerId: string,
  index: number,
  node: DesignNode,
): DesignModel {
  if (!containerItems(model.items, containerId)) return model;
  const items = withContainer(model.items, containerId, (list) => {
    const next = [...list];
    next.splice(Math.max(0, Math.min(index, next.length)), 0, node);
    return next;
  });
  return { ...model, items };
}

export function removeNode(model: DesignModel, id: string): DesignModel {
  const found = locate(model.items, id);
  if (!found) return model;
  const removedNames = new Set(fieldNames([found.node]));
  const items = withContainer(model.items, found.containerId, (list) =>
    list.filter((node) => node.id !== id),
  );
  // A condition on a removed field would name a field that no longer exists.
  return {
    ...model,
    items: mapFields(items, (field) =>
      field.visibleWhen && removedNames.has(field.visibleWhen.field) ? withoutCondition(field) : field,
    ),
  };
}

function withoutCondition(field: FieldNode): FieldNode {
  const { visibleWhen: _dropped, ...rest } = field;
  return rest;
}

/** Moves a node to a position in a container (the index counted without the node itself). */
export function moveNode(model: DesignModel, id: string, containerId: string, index: number): DesignModel {
  const found = locate(model.items, id);
  if (!found || !fits(found.node, containerId)) return model;
  if (found.containerId === containerId && found.index === index) return model;
  const without = withContainer(model.items, found.containerId, (list) =>
    list.filter((node) => node.id !== id),
  );
  if (!containerItems(without, containerId)) return model;
  const items = withContainer(without, containerId, (list) => {
    const next = [...list];
    next.splice(Math.max(0, Math.min(index, next.length)), 0, found.node);
    return next;
  });
  return { ...model, items };
}

/** A copy of a node with fresh ids and, for fields, names no field has yet. */
export function copyOf(model: DesignModel, node: DesignNode): DesignNode {
  const names = new Set(fieldNames(model.items));
  const fresh = (original: string): string => {
    const stem = original.replace(/\d+$/, '') || 'field';
    let n = 1;
    while (names.has(`${stem}${n}`)) n += 1;
    names.add(`${stem}${n}`);
    return `${stem}${n}`;
  };
  const clone = (item: DesignNode): DesignNode => {
    switch (item.kind) {
      case 'field':
        return { ...item, id: newId(), name: fresh(item.name), schema: structuredClone(item.schema) };
      case 'grid':
        return {
          ...item,
          id: newId(),
          columns: item.columns.map((column) => ({
            ...column,
            id: newId('c'),
            items: column.items.map(clone),
          })),
        };
      case 'group':
        return { ...item, id: newId(), items: item.items.map(clone) };
      default:
        return { ...item, id: newId() };
    }
  };
  return clone(node);
}

/** Inserts a copy of a node right after it. */
export function duplicateNode(model: DesignModel, id: string): { model: DesignModel; copyId?: string } {
  const found = locate(model.items, id);
  if (!found) return { model };
  const copy = copyOf(model, found.node);
  return { model: insertNode(model, found.containerId, found.index + 1, copy), copyId: copy.id };
}

function mapFields(items: DesignNode[], change: (field: FieldNode) => FieldNode): DesignNode[] {
  let isChanged = false;
  const next = items.map((node): DesignNode => {
    let result: DesignNode = node;
    if (node.kind === 'field') result = change(node);
    else if (node.kind === 'grid') {
      const columns = node.columns.map((column) => {
        const inner = mapFields(column.items, change);
        return inner === column.items ? column : { ...column, items: inner };
      });
      if (columns.some((column, index) => column !== node.columns[index])) result = { ...node, columns };
    } else if (node.kind === 'group') {
      const inner = mapFields(node.items, change);
      if (inner !== node.items) result = { ...node, items: inner };
    }
    if (result !== node) isChanged = true;
    return result;
  });
  return isChanged ? next : items;
}

/** Replaces one node (found by id) with what `change` makes of it. */
export function updateNode(
  model: DesignModel,
  id: string,
  change: (node: DesignNode) => DesignNode,
): DesignModel {
  const found = locate(model.items, id);
  if (!found) return model;
  const items = withContainer(model.items, found.containerId, (list) =>
    list.map((node) => (node.id === id ? change(node) : node)),
  );
  return { ...model, items };
}

export const FIELD_NAME = /^[a-z][a-zA-Z0-9]*$/;
const RESERVED = ['tenantCode', 'createdAt', 'createdBy', 'updatedAt', 'updatedBy', 'version'];

export type NameProblem = 'invalid' | 'taken' | 'reserved';

/** What is wrong with a field name typed for a field (undefined: nothing). */
export function nameProblem(model: DesignModel, id: string, name: string): NameProblem | undefined {
  if (!FIELD_NAME.test(name)) return 'invalid';
  if (RESERVED.includes(name)) return 'reserved';
  if (fieldNodes(model.items).some((field) => field.name === name && field.id !== id)) return 'taken';
  return undefined;
}

/** Renames a field, with the conditions and the key, label and required list that name it. */
export function renameField(model: DesignModel, id: string, name: string): DesignModel {
  const found = locate(model.items, id);
  if (!found || found.node.kind !== 'field' || nameProblem(model, id, name)) return model;
  const old = found.node.name;
  if (old === name) return model;
  const items = mapFields(model.items, (field) => {
    let next = field.id === id ? { ...field, name } : field;
    if (next.visibleWhen?.field === old)
      next = { ...next, visibleWhen: { ...next.visibleWhen, field: name } };
    return next;
  });
  const entity = model.root['x-entity'] as Record<string, unknown> | undefined;
  const renamedEntity = entity
    ? Object.fromEntries(
        Object.entries(entity).map(([key, value]) => [
          key,
          (key === 'key' || key === 'label') && value === old ? name : value,
        ]),
      )
    : undefined;
  return {
    ...model,
    items,
    root: renamedEntity ? { ...model.root, 'x-entity': renamedEntity } : model.root,
    requiredOrder: model.requiredOrder.map((item) => (item === old ? name : item)),
  };
}

/** Replaces the schema's own keywords (title, description, x-entity) of the form. */
export function withRoot(model: DesignModel, changes: Record<string, unknown>): DesignModel {
  const root: Record<string, unknown> = { ...model.root };
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete root[key];
    else root[key] = value;
  }
  return { ...model, root };
}

/** A grid column's span, the next column giving or taking the difference so the row stays 24. */
export function setColumnSpan(
  model: DesignModel,
  gridId: string,
  columnIndex: number,
  span: number,
): DesignModel {
  return updateNode(model, gridId, (node) => {
    if (node.kind !== 'grid') return node;
    const columns = node.columns.map((column) => ({ ...column }));
    const column = columns[columnIndex];
    if (!column) return node;
    column.span = Math.max(1, Math.min(24, Math.round(span)));
    return { ...node, columns };
  });
}

/** Adds a column to a grid row or takes its last (empty) one away. */
export function setColumnCount(model: DesignModel, gridId: string, count: number): DesignModel {
  return updateNode(model, gridId, (node) => {
    if (node.kind !== 'grid' || count < 1 || count > 6) return node;
    const kept = node.columns.slice(0, count);
    const dropped = node.columns.slice(count).flatMap((column) => column.items);
    const last = kept[kept.length - 1];
    if (last && dropped.length > 0) kept[kept.length - 1] = { ...last, items: [...last.items, ...dropped] };
    while (kept.length < count) kept.push({ id: newId('c'), span: 12, items: [] });
    const span = Math.floor(24 / count);
    return { ...node, columns: kept.map((column) => ({ ...column, span })) };
  });
}

// History ----------------------------------------------------------------------------------------

export const HISTORY_LIMIT = 200;

export interface History {
  past: DesignModel[];
  present: DesignModel;
  future: DesignModel[];
}

export function historyOf(model: DesignModel): History {
  return { past: [], present: model, future: [] };
}

export function commit(history: History, model: DesignModel): History {
  if (model === history.present) return history;
  const past = [...history.past, history.present];
  return {
    past: past.length > HISTORY_LIMIT ? past.slice(past.length - HISTORY_LIMIT) : past,
    present: model,
    future: [],
  };
}

export function undo(history: History): History {
  const previous = history.past[history.past.length - 1];
  if (!previous) return history;
  return { past: history.past.slice(0, -1), present: previous, future: [history.present, ...history.future] };
}

export function redo(history: History): History {
  const [next, ...future] = history.future;
  if (!next) return history;
  return { past: [...history.past, history.present], present: next, future };
}

/** The nodes in keyboard order (depth first), for the arrow keys. */
export function nodeOrder(items: readonly DesignNode[]): DesignNode[] {
  const order: DesignNode[] = [];
  const visit = (nodes: readonly DesignNode[]): void => {
    for (const node of nodes) {
      order.push(node);
      if (node.kind === 'grid') for (const column of node.columns) visit(column.items);
      else if (node.kind === 'group') visit(node.items);
    }
  };
  visit(items);
  return order;
}

/** The file name an exported schema is saved under (schemas/<name>.schema.json). */
export function exportFileName(schema: EntitySchema): string {
  const api = schema['x-entity']?.api ?? 'form/myform';
  const name = api.split('/').pop() ?? 'myform';
  return `${name}.schema.json`;
}

/** The exported file's text: the schema as the files of schemas/ are written (two-space JSON). */
export function exportText(schema: EntitySchema): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/** What the published form's list offers on a field: the engine's rule (column shown, sortable). */
export function fieldListUse(schema: DesignFieldSchema): ListUse {
  return listUseOf('', schema, false);
}

/**
 * The field with its list switch (x-list.visible or x-list.sorter) set as the panel says: the
 * hint is left out when the engine's default already gives that, so a form keeps saying only
 * what differs (a hidden column is not sortable unless sorter is true).
 */
export function withListHint(
  schema: DesignFieldSchema,
  hint: 'visible' | 'sorter',
  isOn: boolean,
): DesignFieldSchema {
  const { [hint]: _dropped, ...rest } = schema['x-list'] ?? {};
  const bare: DesignFieldSchema = { ...schema, 'x-list': rest };
  const use = fieldListUse(bare);
  const hints =
    isOn === (hint === 'visible' ? use.isListed : use.isSortable) ? rest : { ...rest, [hint]: isOn };
  const next: DesignFieldSchema = { ...schema, 'x-list': hints };
  if (Object.keys(hints).length === 0) delete next['x-list'];
  return next;
}
