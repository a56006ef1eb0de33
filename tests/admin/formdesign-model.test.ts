import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  blankSchema,
  commit,
  duplicateNode,
  exportText,
  FIELD_KINDS,
  fieldListUse,
  fieldNames,
  historyOf,
  HISTORY_LIMIT,
  insertNode,
  kindOf,
  locate,
  modelToSchema,
  moveNode,
  nameProblem,
  newField,
  newLayout,
  redo,
  removeNode,
  renameField,
  ROOT_ID,
  schemaToModel,
  undo,
  withListHint,
  updateNode,
  withDecimalDigits,
  type DesignModel,
  type FieldNode,
  type GridNode,
} from '../../src/admin/features/forms/designer/model.js';
import {
  buildEntity,
  checkEntitySchema,
  compileValidators,
  createAjv,
  EntityInputError,
  formFields,
  prepareInput,
  type EntityDef,
  type EntitySchema,
} from '../../src/engine/index.js';

const SCHEMAS_DIR = join(import.meta.dirname, '../../schemas');
const files = readdirSync(SCHEMAS_DIR).filter((file) => file.endsWith('.schema.json'));

function check(schema: EntitySchema): string[] {
  return checkEntitySchema('myform.schema.json', 'myform', structuredClone(schema)).map(
    (problem) => `${problem.pointer}: ${problem.message}`,
  );
}

/** The fields the server's input check refuses in a new record (none: an empty list). */
function refused(entity: EntityDef, body: Record<string, unknown>): string[] {
  try {
    prepareInput(entity, compileValidators(createAjv(), entity), body, 'create');
    return [];
  } catch (error) {
    if (error instanceof EntityInputError) return error.errors.map((item) => item.field);
    throw error;
  }
}

function add(model: DesignModel, node: FieldNode | GridNode, containerId = ROOT_ID): DesignModel {
  return insertNode(model, containerId, Number.MAX_SAFE_INTEGER, node);
}

describe('form designer model: round trip', () => {
  it('finds the schemas', () => {
    expect(files.length).toBeGreaterThanOrEqual(17);
  });

  for (const file of files) {
    it(`opens ${file} and writes it back unchanged (the same text)`, () => {
      const text = readFileSync(join(SCHEMAS_DIR, file), 'utf8');
      const schema = JSON.parse(text) as EntitySchema;
      const model = schemaToModel(schema);
      expect(fieldNames(model.items)).toEqual(Object.keys(schema.properties));
      const back = modelToSchema(model);
      expect(JSON.stringify(back, null, 2)).toBe(JSON.stringify(schema, null, 2));
    });
  }
});

describe('form designer model: a new form', () => {
  it('is titled in Chinese too, not only "My form" (issue 40.11), and its schema stays valid', () => {
    const schema = modelToSchema(schemaToModel(blankSchema()));
    expect(schema['x-ui']?.titles).toEqual({ zh: '我的表单', tw: '我的表單' });
    expect(check(schema)).toEqual([]);
  });
});

describe('form designer model: palette', () => {
  for (const kind of FIELD_KINDS.filter((item) => item !== 'subtable')) {
    it(`a ${kind} from the palette is a valid field of its own kind`, () => {
      let model = schemaToModel(blankSchema());
      const field = newField(model, kind, `A ${kind}`);
      model = add(model, field);
      const schema = modelToSchema(model);
      expect(check(schema)).toEqual([]);
      expect(schema.properties[`${kind}1`]).toEqual(field.schema);
      expect(kindOf(field.schema)).toBe(kind);
      // and the engine builds the entity and its validators from it
      const entity = buildEntity('myform', schema);
      expect(entity.fieldsByName.has(`${kind}1`)).toBe(true);
      compileValidators(createAjv(), entity);
    });
  }

  it('a sub-table is an array of objects marked x-detail', () => {
    const model = schemaToModel(blankSchema());
    const field = newField(model, 'subtable', 'Lines');
    expect(field.schema).toMatchObject({ type: 'array', 'x-detail': {}, items: { type: 'object' } });
    expect(kindOf(field.schema)).toBe('subtable');
  });

  it('a 金额 (money) field is an exact decimal: numeric(18,2), text on the wire, InputNumber in stringMode', () => {
    let model = schemaToModel(blankSchema());
    const money = newField(model, 'money', 'Amount');
    expect(money.schema).toEqual({
      type: 'string',
      title: 'Amount',
      format: 'decimal',
      'x-decimal': { precision: 18, scale: 2 },
    });
    model = add(model, money);
    const schema = modelToSchema(model);
    expect(check(schema)).toEqual([]);
    const entity = buildEntity('myform', schema);
    expect(entity.fieldsByName.get('money1')?.sqlType).toBe('numeric(18,2)');
    // the generated form's widget: the exact updown (InputNumber stringMode) at the scale
    const field = formFields(entity, 'create').find((item) => item.name === 'money1');
    expect(field?.widget).toBe('updown');
    expect(field?.options.exact).toEqual({ precision: 2 });
    expect(
      prepareInput(entity, compileValidators(createAjv(), entity), { money1: '0.3' }, 'create').values,
    ).toEqual({ money1: '0.3' });
    expect(refused(entity, { money1: '0.30' })).toEqual([]);
    // more digits than the scale are refused, never rounded; a float never taken
    expect(refused(entity, { money1: '1.005' })).toEqual(['/money1']);
    expect(refused(entity, { money1: 0.1 })).toEqual(['/money1']);
  });

  it("edits a money field's digits: the scale stays within the precision, the bounds exact text", () => {
    const money = newField(schemaToModel(blankSchema()), 'money', 'Amount').schema;
    expect(withDecimalDigits(money, { precision: 10, scale: 4 })['x-decimal']).toEqual({
      precision: 10,
      scale: 4,
    });
    expect(withDecimalDigits(money, { precision: 1 })['x-decimal']).toEqual({ precision: 1, scale: 1 });
    const bounded = withDecimalDigits(money, { minimum: '0', maximum: '99999999.99' });
    expect(bounded['x-decimal']).toEqual({ precision: 18, scale: 2, minimum: '0', maximum: '99999999.99' });
    expect(withDecimalDigits(bounded, { minimum: undefined })['x-decimal']).toEqual({
      precision: 18,
      scale: 2,
      maximum: '99999999.99',
    });
    const entity = buildEntity('myform', {
      ...blankSchema(),
      properties: { ...blankSchema().properties, money1: bounded },
    });
    expect(refused(entity, { money1: '-0.01' })).toEqual(['/money1']);
    expect(refused(entity, { money1: '99999999.99' })).toEqual([]);
    expect(refused(entity, { money1: '100000000' })).toEqual(['/money1']);
  });

  it('a dictionary select, a user picker, a grid row and a condition make a valid schema that round-trips', () => {
    let model = schemaToModel(blankSchema());
    const select = newField(model, 'select', 'Category');
    const dictSelect: FieldNode = {
      ...select,
      schema: { type: 'string', title: 'Category', 'x-dict': 'notice_type', 'x-ui': { widget: 'select' } },
    };
    model = add(model, dictSelect);
    const user = newField(model, 'user', 'Owner');
    model = add(model, { ...user, isRequired: true });
    const grid = newLayout('grid') as GridNode;
    model = add(model, grid);
    const left = newField(model, 'text', 'Left');
    model = add(model, left, grid.columns[0]?.id);
    const right = newField(model, 'date', 'Right');
    model = add(
      model,
      { ...right, isRequired: true, visibleWhen: { field: 'select1', equals: 'urgent' } },
      grid.columns[1]?.id,
    );
    const schema = modelToSchema(model);
    expect(check(schema)).toEqual([]);
    expect(schema.required).toEqual(['user1']);
    expect(schema['x-ui']?.items).toEqual([
      'id',
      'select1',
      'user1',
      {
        kind: 'grid',
        columns: [
          { span: 12, items: ['text1'] },
          { span: 12, items: ['date1'] },
        ],
      },
    ]);
    expect(schema.allOf).toEqual([
      {
        if: { properties: { select1: { const: 'urgent' } }, required: ['select1'] },
        then: { required: ['date1'] },
        else: { properties: { date1: false } },
      },
    ]);
    const again = modelToSchema(schemaToModel(JSON.parse(exportText(schema)) as EntitySchema));
    expect(exportText(again)).toBe(exportText(schema));

    // the server validates the branch: required while shown, refused while hidden
    const validators = compileValidators(createAjv(), buildEntity('myform', schema));
    expect(validators.create({ user1: 1, select1: 'urgent' })).toBe(false);
    expect(validators.create({ user1: 1, select1: 'urgent', date1: '2026-01-02' })).toBe(true);
    expect(validators.create({ user1: 1, select1: 'other', date1: '2026-01-02' })).toBe(false);
    expect(validators.create({ user1: 1, select1: 'other' })).toBe(true);
  });

  it('the meta-schema refuses a layout or a condition that names a missing field', () => {
    const schema = {
      ...blankSchema(),
      'x-ui': { items: ['nope', 'id', 'id'] },
      allOf: [
        {
          if: { properties: { ghost: { const: 1 } }, required: ['ghost'] },
          else: { properties: { id: false } },
        },
      ],
    } as EntitySchema;
    expect(check(schema)).toEqual([
      '/x-ui/items/0: "nope" is not a property',
      '/x-ui/items/2: "id" is placed twice',
      '/allOf/0/if: "ghost" is not a property',
    ]);
  });
});

describe('form designer model: edits', () => {
  it('moves a field into a grid column and back, copies, renames and removes', () => {
    let model = schemaToModel(blankSchema());
    const a = newField(model, 'text', 'A');
    model = add(model, a);
    const grid = newLayout('grid') as GridNode;
    model = add(model, grid);
    const column = grid.columns[1]?.id ?? '';
    model = moveNode(model, a.id, column, 0);
    expect(locate(model.items, a.id)).toMatchObject({ containerId: column, index: 0 });
    // a grid cannot go into its own column
    expect(moveNode(model, grid.id, column, 0)).toBe(model);
    model = moveNode(model, a.id, ROOT_ID, 0);
    expect(fieldNames(model.items)).toEqual(['text1', 'id']);
    const { model: copied, copyId } = duplicateNode(model, a.id);
    expect(fieldNames(copied.items)).toEqual(['text1', 'text2', 'id']);
    expect(copyId).toBeDefined();
    expect(nameProblem(copied, a.id, 'text2')).toBe('taken');
    expect(nameProblem(copied, a.id, 'Bad name')).toBe('invalid');
    expect(nameProblem(copied, a.id, 'version')).toBe('reserved');
    expect(nameProblem(copied, a.id, 'title')).toBeUndefined();
    let renamed = updateNode(copied, copyId ?? '', (node) =>
      node.kind === 'field' ? { ...node, visibleWhen: { field: 'text1', equals: 'x' } } : node,
    );
    renamed = renameField(renamed, a.id, 'title');
    const copy = locate(renamed.items, copyId ?? '')?.node as FieldNode;
    expect(copy.visibleWhen?.field).toBe('title');
    const removed = removeNode(renamed, a.id);
    expect(fieldNames(removed.items)).toEqual(['text2', 'id']);
    expect((locate(removed.items, copyId ?? '')?.node as FieldNode).visibleWhen).toBeUndefined();
  });

  it('keeps at least 100 steps of history, undoes and redoes them', () => {
    const start = schemaToModel(blankSchema());
    let history = historyOf(start);
    for (let step = 0; step < 150; step += 1) {
      history = commit(history, add(history.present, newField(history.present, 'text', `F${step}`)));
    }
    expect(HISTORY_LIMIT).toBeGreaterThanOrEqual(100);
    for (let step = 0; step < 150; step += 1) history = undo(history);
    expect(fieldNames(history.present.items)).toEqual(['id']);
    history = redo(redo(history));
    expect(fieldNames(history.present.items)).toEqual(['id', 'text1', 'text2']);
  });
});

describe('the list switches of a field', () => {
  const text = { type: 'string' as const, title: 'Phone', maxLength: 32 };

  it('shows a short field as a sortable column, and a hidden one without a sorter', () => {
    expect(fieldListUse(text)).toMatchObject({ isListed: true, isSortable: true });
    const hidden = withListHint(text, 'visible', false);
    expect(hidden['x-list']).toEqual({ visible: false });
    expect(fieldListUse(hidden)).toMatchObject({ isListed: false, isSortable: false, isOrderable: true });
    // Switched on: the schema says so, and the engine indexes it.
    const sorted = withListHint(hidden, 'sorter', true);
    expect(sorted['x-list']).toEqual({ visible: false, sorter: true });
    expect(fieldListUse(sorted).isSortable).toBe(true);
  });

  it('writes only what differs from the default, and nothing at all when it is the default', () => {
    expect(withListHint(text, 'visible', true)).toEqual(text);
    expect(withListHint(text, 'sorter', true)).toEqual(text);
    expect(withListHint(text, 'sorter', false)['x-list']).toEqual({ sorter: false });
    const shownAgain = withListHint(withListHint(text, 'visible', false), 'visible', true);
    expect(shownAgain).toEqual(text);
  });

  it('offers no sorter on a long text, an array or a secret', () => {
    expect(fieldListUse({ type: 'string', maxLength: 2000 })).toMatchObject({
      isListed: false,
      isOrderable: false,
    });
    expect(fieldListUse({ type: 'array', items: { type: 'string' } }).isOrderable).toBe(false);
    expect(fieldListUse({ type: 'string', 'x-secret': true }).isSortable).toBe(false);
  });
});

describe('组件类型: the widgets a field may switch between (issue 40 point 12)', () => {
  it('offers the widgets of its type and keeps the type when one is chosen', async () => {
    const { currentWidget, paletteSchema, widgetChoices, withWidget } =
      await import('../../src/admin/features/forms/designer/model.js');
    const text = paletteSchema('text', 'Name');
    expect(widgetChoices(text)).toEqual(['text', 'textarea', 'richtext', 'password']);
    expect(currentWidget(text)).toBe('text');
    const area = withWidget(text, 'textarea');
    expect(area).toMatchObject({ type: 'string', maxLength: 100, 'x-ui': { widget: 'textarea' } });
    expect(kindOf(area)).toBe('textarea');
    expect(kindOf(withWidget(paletteSchema('textarea', 'Notes'), 'text'))).toBe('text');
    const select = paletteSchema('select', 'State');
    expect(widgetChoices(select)).toEqual(['select', 'radio']);
    expect(kindOf(withWidget(select, 'radio'))).toBe('radio');
    expect(widgetChoices({ type: 'string', title: 'Kind', 'x-dict': 'yes_no' })).toEqual(['select', 'radio']);
    expect(widgetChoices(paletteSchema('checkbox', 'Tags'))).toEqual(['checkboxes', 'select']);
    expect(widgetChoices(paletteSchema('upload', 'Files'))).toEqual(['upload', 'image']);
    expect(widgetChoices(paletteSchema('date', 'Day'))).toEqual([]);
    expect(widgetChoices(paletteSchema('user', 'Owner'))).toEqual([]);
    expect(widgetChoices(paletteSchema('integer', 'Count'))).toEqual([]);
  });
});
