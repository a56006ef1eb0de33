import { Button, ConfigProvider, Input, InputNumber, Radio, Select, Switch, Typography } from 'antd';
import { memo, useCallback, useDeferredValue, useEffect, useMemo, useState, type ReactNode } from 'react';
import type {
  ComputedOptions,
  EntityOptions,
  FormUiHints,
  RecordRule,
  Titles,
  UiHints,
  Widget,
} from '../../../../engine/types.js';
import type { Page, WfDefinition } from '../../../../engine/api-types.js';
import { expressionProblem } from '../../../../engine/expressions.js';
import { useApiGet } from '../../../lib/api.js';
import { useLanguage, type Translate } from '../../../i18n.js';
import { loadResources, type ResourceApi } from '../../../providers/resources.js';
import {
  currentWidget,
  fieldListUse,
  fieldNodes,
  kindOf,
  locate,
  nameProblem,
  renameField,
  setColumnCount,
  setColumnSpan,
  updateNode,
  withDecimalDigits,
  withListHint,
  widgetChoices,
  withRoot,
  withWidget,
  type DesignFieldSchema,
  type DesignModel,
  type DesignNode,
  type FieldNode,
} from './model.js';
import { SubtableColumns } from './SubtableColumns.js';
import { titleIn } from './render.js';

/** A dictionary the 字典 picker offers (GET generator/form/dictionaries). */
interface FormDictionary {
  dictType: string;
  dictName: string | null;
  items: number;
}

/**
 * 字典: one of the tenant's dictionaries with items, searched by name or code and shown as both;
 * a code the list does not hold (typed in JSON, or removed since) is shown as unknown, for 校验 to name.
 */
function DictionaryPicker({
  value,
  onChange,
  t,
}: {
  value: string | undefined;
  onChange: (dict: string) => void;
  t: Translate;
}) {
  const dictionaries = useApiGet<FormDictionary[]>('/api/generator/form/dictionaries');
  const options = useMemo(() => {
    const found = (dictionaries.data ?? []).map((dict) => {
      const name = t(`dicts.${dict.dictType}._`, { defaultValue: dict.dictName ?? dict.dictType });
      return { value: dict.dictType, label: `${name} (${dict.dictType})` };
    });
    return value && !dictionaries.isLoading && !found.some((option) => option.value === value)
      ? [{ value, label: t('formDesigner.prop.unknownDict', { dict: value }) }, ...found]
      : found;
  }, [dictionaries.data, dictionaries.isLoading, value, t]);
  const isUnknown =
    value !== undefined &&
    options[0]?.value === value &&
    !(dictionaries.data ?? []).some((dict) => dict.dictType === value);
  return (
    <Item
      id="fd-dict"
      label={t('formDesigner.prop.dictionary')}
      help={
        isUnknown && !dictionaries.isLoading ? t('formDesigner.prop.unknownDict', { dict: value }) : undefined
      }
    >
      <Select
        id="fd-dict"
        data-testid="prop-dict"
        showSearch
        optionFilterProp="label"
        loading={dictionaries.isLoading}
        placeholder={t('formDesigner.prop.dictPlaceholder')}
        status={isUnknown ? 'error' : undefined}
        value={value}
        onChange={(next: string) => onChange(next)}
        options={options}
      />
    </Item>
  );
}

/**
 * A change of the design: `key` groups the keystrokes of one property into one undo step, and
 * the model comes from the designer's current one (the panel does not hold the whole model, so
 * it is not painted again for changes elsewhere, on the canvas).
 */
export type Edit = (key: string, change: (model: DesignModel) => DesignModel) => void;

/** The dictionary a select switched to dictionary options starts with. */
const DEFAULT_DICT = 'yes_no';

/** An object with one key set, or taken away when the value is undefined or empty. */
function withKey<T extends object>(object: T, key: string, value: unknown): T {
  const next = { ...object } as Record<string, unknown>;
  const isEmpty =
    value === undefined ||
    value === '' ||
    (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0);
  if (isEmpty) delete next[key];
  else next[key] = value;
  return next as T;
}

/**
 * One property: its label, its input, and a problem under it. Plain markup, not antd's Form.Item:
 * a Form.Item is a grid row with its own style and breakpoint hooks, and the panel has about
 * twenty of them, all mounted again for each item selected and painted for each key typed.
 */
function Item({
  id,
  label,
  children,
  help,
}: {
  id: string;
  label: string;
  children: ReactNode;
  help?: ReactNode;
}) {
  return (
    <div className={`formdesign-prop${help ? ' has-error' : ''}`}>
      <label className="formdesign-prop-label" htmlFor={id}>
        {label}
      </label>
      {children}
      {help ? (
        <div className="formdesign-prop-help" role="alert">
          {help}
        </div>
      ) : null}
    </div>
  );
}

/** A text input that keeps what is typed while the model takes it (for names that must be valid first). */
function NameInput({
  field,
  edit,
  getModel,
  t,
}: {
  field: FieldNode;
  edit: Edit;
  getModel: () => DesignModel;
  t: Translate;
}) {
  const [draft, setDraft] = useState(field.name);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  useEffect(() => {
    setDraft(field.name);
    setProblem(undefined);
  }, [field.name, field.id]);
  return (
    <Item
      id="fd-name"
      label={t('formDesigner.prop.name')}
      help={problem ? t(`formDesigner.nameProblem.${problem}`) : undefined}
    >
      <Input
        id="fd-name"
        value={draft}
        status={problem ? 'error' : undefined}
        data-testid="prop-name"
        onChange={(event) => {
          const name = event.target.value;
          setDraft(name);
          const found = nameProblem(getModel(), field.id, name);
          setProblem(name === field.name ? undefined : found);
          if (!found) edit(`name:${field.id}`, (model) => renameField(model, field.id, name));
        }}
      />
    </Item>
  );
}

const TitleInputs = memo(function TitleInputs({
  prefix,
  title,
  titles,
  onTitle,
  onTitles,
  t,
}: {
  prefix: string;
  title: string | undefined;
  titles: Titles | undefined;
  onTitle: (value: string | undefined) => void;
  onTitles: (value: Titles) => void;
  t: Translate;
}) {
  return (
    <>
      {(['zh', 'tw'] as const).map((language) => (
        <Item
          key={language}
          id={`${prefix}-title-${language}`}
          label={t(`formDesigner.prop.title_${language}`)}
        >
          <Input
            id={`${prefix}-title-${language}`}
            value={titles?.[language] ?? ''}
            data-testid={`prop-title-${language}`}
            onChange={(event) => onTitles(withKey(titles ?? {}, language, event.target.value))}
          />
        </Item>
      ))}
      <Item id={`${prefix}-title-en`} label={t('formDesigner.prop.title_en')}>
        <Input
          id={`${prefix}-title-en`}
          value={title ?? ''}
          data-testid="prop-title-en"
          onChange={(event) => onTitle(event.target.value || undefined)}
        />
      </Item>
    </>
  );
});

function useEntities(): ResourceApi[] {
  const [entities, setEntities] = useState<ResourceApi[]>([]);
  useEffect(() => {
    let isCurrent = true;
    void loadResources().then((table) => isCurrent && setEntities([...table.values()]));
    return () => {
      isCurrent = false;
    };
  }, []);
  return entities;
}

/** A money field's digits (precision, scale) and exact bounds, each bound typed as text. */
function MoneyDigits({
  schema,
  onChange,
  t,
}: {
  schema: DesignFieldSchema;
  onChange: (key: string, next: DesignFieldSchema) => void;
  t: Translate;
}) {
  const spec = schema['x-decimal'];
  const bound = (key: 'minimum' | 'maximum') => (
    <Item id={`fd-${key}`} label={t(`formDesigner.prop.${key}`)}>
      <InputNumber<string>
        id={`fd-${key}`}
        stringMode
        value={spec?.[key] ?? null}
        onChange={(value) => onChange(key, withDecimalDigits(schema, { [key]: value ?? undefined }))}
      />
    </Item>
  );
  return (
    <>
      <Item id="fd-precision" label={t('formDesigner.prop.precision')}>
        <InputNumber
          id="fd-precision"
          min={1}
          max={38}
          precision={0}
          value={spec?.precision ?? null}
          onChange={(value) =>
            onChange('precision', withDecimalDigits(schema, { precision: value ?? undefined }))
          }
        />
      </Item>
      <Item id="fd-scale" label={t('formDesigner.prop.scale')}>
        <InputNumber
          id="fd-scale"
          min={0}
          max={spec?.precision ?? 38}
          precision={0}
          value={spec?.scale ?? null}
          onChange={(value) => onChange('scale', withDecimalDigits(schema, { scale: value ?? 0 }))}
        />
      </Item>
      {bound('minimum')}
      {bound('maximum')}
    </>
  );
}

/** A default or condition value typed as the field's type asks. */
function typedValue(
  schema: Pick<DesignFieldSchema, 'type'>,
  text: string,
): string | number | boolean | undefined {
  if (text === '') return undefined;
  if (schema.type === 'integer' || schema.type === 'number') {
    const number = Number(text);
    return Number.isFinite(number) ? number : undefined;
  }
  if (schema.type === 'boolean') return text === 'true';
  return text;
}

/** Another field a condition may name: its name, type and options. */
type OtherField = Pick<FieldNode, 'name'> & {
  schema: Pick<DesignFieldSchema, 'type' | 'enum'>;
  /** Its title in the designer's language (显示条件 names fields by their titles). */
  label: string;
};

const FieldProperties = memo(function FieldProperties({
  field,
  others,
  edit,
  getModel,
  t,
}: {
  field: FieldNode;
  others: readonly OtherField[];
  edit: Edit;
  getModel: () => DesignModel;
  t: Translate;
}) {
  const entities = useEntities();
  const schema = field.schema;
  const ui: UiHints = schema['x-ui'] ?? {};
  const kind = kindOf(schema);
  const fieldId = field.id;
  // A change of the schema as it is when applied (the sub-table's columns): stable per field.
  const patchSchema = useCallback(
    (key: string, change: (current: DesignFieldSchema) => DesignFieldSchema) =>
      edit(`${key}:${fieldId}`, (model) =>
        updateNode(model, fieldId, (node) =>
          node.kind === 'field' ? { ...node, schema: change(node.schema) } : node,
        ),
      ),
    [edit, fieldId],
  );
  const patch = (key: string, next: DesignFieldSchema): void =>
    edit(`${key}:${field.id}`, (model) =>
      updateNode(model, field.id, (node) => (node.kind === 'field' ? { ...node, schema: next } : node)),
    );
  const set = (key: string, value: unknown): void => patch(key, withKey(schema, key, value));
  const setUi = (key: string, value: unknown): void =>
    patch(`ui.${key}`, withKey(schema, 'x-ui', withKey(ui, key, value)));
  const setNode = (key: string, change: (node: FieldNode) => FieldNode): void =>
    edit(`${key}:${field.id}`, (model) =>
      updateNode(model, field.id, (node) => (node.kind === 'field' ? change(node) : node)),
    );
  const isText =
    schema.type === 'string' &&
    !schema.format &&
    !schema['x-ref'] &&
    !schema['x-dict'] &&
    !schema.enum &&
    ui.widget !== 'richtext';
  const isNumber = schema.type === 'integer' || schema.type === 'number';
  const hasOptions = kind === 'select' || kind === 'radio' || kind === 'checkbox';
  const optionsOwner = schema.type === 'array' ? (schema.items ?? { type: 'string' as const }) : schema;
  const isDict = schema['x-dict'] !== undefined;
  const when = field.visibleWhen;
  const whenField = others.find((other) => other.name === when?.field);
  const target = entities.find((entity) => entity.name === schema['x-ref']);
  // The list's column and sorter, with the engine's defaults (a hidden column is not sortable).
  const listUse = fieldListUse(schema);
  const widgets = widgetChoices(schema);
  return (
    <>
      <NameInput field={field} edit={edit} getModel={getModel} t={t} />
      <TitleInputs
        prefix="fd-field"
        title={schema.title}
        titles={ui.titles}
        onTitle={(value) => set('title', value)}
        onTitles={(value) => setUi('titles', value)}
        t={t}
      />
      {widgets.length > 1 ? (
        <Item id="fd-widget" label={t('formDesigner.prop.widget')}>
          <Select
            id="fd-widget"
            data-testid="prop-widget"
            value={currentWidget(schema)}
            onChange={(widget: Widget) => patch('widget', withWidget(schema, widget))}
            options={widgets.map((widget) => ({ value: widget, label: t(`formDesigner.widget.${widget}`) }))}
          />
        </Item>
      ) : null}
      <Item id="fd-placeholder" label={t('formDesigner.prop.placeholder')}>
        <Input
          id="fd-placeholder"
          value={ui.placeholder ?? ''}
          onChange={(event) => setUi('placeholder', event.target.value)}
        />
      </Item>
      {schema.type !== 'array' && schema.type !== 'object' ? (
        <Item id="fd-default" label={t('formDesigner.prop.default')}>
          <Input
            id="fd-default"
            value={schema.default === undefined ? '' : String(schema.default)}
            onChange={(event) => set('default', typedValue(schema, event.target.value))}
          />
        </Item>
      ) : null}
      <Item id="fd-required" label={t('formDesigner.prop.required')}>
        <Switch
          id="fd-required"
          checked={field.isRequired}
          data-testid="prop-required"
          onChange={(checked) => setNode('required', (node) => ({ ...node, isRequired: checked }))}
        />
      </Item>
      {isText ? (
        <>
          <Item id="fd-minLength" label={t('formDesigner.prop.minLength')}>
            <InputNumber
              id="fd-minLength"
              min={0}
              value={schema.minLength ?? null}
              onChange={(value) => set('minLength', value ?? undefined)}
            />
          </Item>
          <Item id="fd-maxLength" label={t('formDesigner.prop.maxLength')}>
            <InputNumber
              id="fd-maxLength"
              min={1}
              value={schema.maxLength ?? null}
              onChange={(value) => set('maxLength', value ?? undefined)}
            />
          </Item>
          <Item id="fd-pattern" label={t('formDesigner.prop.pattern')}>
            <Input
              id="fd-pattern"
              value={schema.pattern ?? ''}
              onChange={(event) => set('pattern', event.target.value)}
            />
          </Item>
          <Item id="fd-patternMessage" label={t('formDesigner.prop.patternMessage')}>
            <Input
              id="fd-patternMessage"
              value={ui.patternMessage ?? ''}
              onChange={(event) => setUi('patternMessage', event.target.value)}
            />
          </Item>
        </>
      ) : null}
      {isNumber ? (
        <>
          <Item id="fd-minimum" label={t('formDesigner.prop.minimum')}>
            <InputNumber
              id="fd-minimum"
              value={schema.minimum ?? null}
              onChange={(value) => set('minimum', value ?? undefined)}
            />
          </Item>
          <Item id="fd-maximum" label={t('formDesigner.prop.maximum')}>
            <InputNumber
              id="fd-maximum"
              value={schema.maximum ?? null}
              onChange={(value) => set('maximum', value ?? undefined)}
            />
          </Item>
        </>
      ) : null}
      {kind === 'money' ? (
        <MoneyDigits schema={schema} onChange={(key, next) => patch(key, next)} t={t} />
      ) : null}
      {hasOptions ? (
        <>
          <Item id="fd-source" label={t('formDesigner.prop.optionSource')}>
            <Radio.Group
              id="fd-source"
              value={isDict ? 'dict' : 'static'}
              onChange={(event) => {
                const toDict = event.target.value === 'dict';
                const dict = toDict ? DEFAULT_DICT : undefined;
                const options = toDict ? undefined : ['A', 'B', 'C'];
                if (schema.type === 'array') {
                  const items = withKey(schema.items ?? { type: 'string' as const }, 'enum', options);
                  patch('source', withKey({ ...schema, items }, 'x-dict', dict));
                } else {
                  patch('source', withKey(withKey(schema, 'enum', options), 'x-dict', dict));
                }
              }}
              options={[
                { value: 'static', label: t('formDesigner.prop.staticOptions') },
                { value: 'dict', label: t('formDesigner.prop.dictionary') },
              ]}
            />
          </Item>
          {isDict ? (
            <DictionaryPicker value={schema['x-dict']} onChange={(dict) => set('x-dict', dict)} t={t} />
          ) : (
            <Item id="fd-options" label={t('formDesigner.prop.options')}>
              <Select
                id="fd-options"
                mode="tags"
                value={(optionsOwner.enum ?? []).map(String)}
                onChange={(values: string[]) => {
                  const list = values.length > 0 ? values : undefined;
                  if (schema.type === 'array')
                    patch('options', {
                      ...schema,
                      items: withKey(schema.items ?? { type: 'string' as const }, 'enum', list),
                    });
                  else set('enum', list);
                }}
              />
            </Item>
          )}
        </>
      ) : null}
      {kind === 'ref' ? (
        <Item id="fd-ref" label={t('formDesigner.prop.reference')} help={undefined}>
          <Select
            id="fd-ref"
            showSearch
            value={schema['x-ref']}
            options={entities.map((entity) => ({ value: entity.name, label: entity.name }))}
            onChange={(name: string) => {
              const key = entities.find((entity) => entity.name === name)?.entity?.key.type;
              patch('ref', { ...schema, 'x-ref': name, type: key === 'string' ? 'string' : 'integer' });
            }}
          />
          {target?.entity ? (
            <Typography.Text type="secondary">
              {t('formDesigner.prop.shownBy', { field: target.entity.label })}
            </Typography.Text>
          ) : null}
        </Item>
      ) : null}
      {kind === 'subtable' ? <SubtableColumns schema={schema} patch={patchSchema} t={t} /> : null}
      <Item id="fd-span" label={t('formDesigner.prop.span')}>
        <InputNumber
          id="fd-span"
          min={1}
          max={24}
          value={ui.span ?? null}
          data-testid="prop-span"
          onChange={(value) => setUi('span', value ?? undefined)}
        />
      </Item>
      <Item id="fd-readOnly" label={t('formDesigner.prop.readOnly')}>
        <Switch
          id="fd-readOnly"
          checked={schema.readOnly === true}
          onChange={(checked) => set('readOnly', checked || undefined)}
        />
      </Item>
      <ComputedProperty
        computed={schema['x-computed']}
        names={others.map((other) => other.name)}
        onChange={(value) => set('x-computed', value)}
        t={t}
      />
      <Item id="fd-listed" label={t('formDesigner.prop.listed')}>
        <Switch
          id="fd-listed"
          checked={listUse.isListed}
          data-testid="prop-listed"
          onChange={(checked) => patch('listed', withListHint(schema, 'visible', checked))}
        />
      </Item>
      <Item id="fd-sortable" label={t('formDesigner.prop.sortable')}>
        <Switch
          id="fd-sortable"
          checked={listUse.isSortable}
          disabled={!listUse.isOrderable}
          data-testid="prop-sortable"
          onChange={(checked) => patch('sortable', withListHint(schema, 'sorter', checked))}
        />
        <Typography.Text type="secondary">{t('formDesigner.prop.sortableHelp')}</Typography.Text>
      </Item>
      <Item id="fd-help" label={t('formDesigner.prop.help')}>
        <Input.TextArea
          id="fd-help"
          rows={2}
          value={ui.help ?? ''}
          onChange={(event) => setUi('help', event.target.value)}
        />
      </Item>
      <Item id="fd-when" label={t('formDesigner.prop.visibleWhen')}>
        <Select
          id="fd-when"
          allowClear
          data-testid="prop-when-field"
          placeholder={t('formDesigner.prop.always')}
          value={when?.field}
          options={others.map((other) => ({
            value: other.name,
            label: other.label && other.label !== other.name ? `${other.label}（${other.name}）` : other.name,
          }))}
          onChange={(name: string | undefined) =>
            setNode('when', (node) => {
              if (!name) {
                const { visibleWhen: _dropped, ...rest } = node;
                return rest;
              }
              const other = others.find((item) => item.name === name);
              const first = other?.schema.enum?.[0];
              const equals =
                typeof first === 'string' || typeof first === 'number' || typeof first === 'boolean'
                  ? first
                  : other?.schema.type === 'boolean'
                    ? true
                    : '';
              return { ...node, visibleWhen: { field: name, equals } };
            })
          }
        />
      </Item>
      {when && whenField ? (
        <Item id="fd-when-value" label={t('formDesigner.prop.equals')}>
          <Input
            id="fd-when-value"
            data-testid="prop-when-value"
            value={String(when.equals)}
            onChange={(event) =>
              setNode('whenValue', (node) => ({
                ...node,
                visibleWhen: {
                  field: when.field,
                  equals: typedValue(whenField.schema, event.target.value) ?? '',
                },
              }))
            }
          />
        </Item>
      ) : null}
    </>
  );
});

const LayoutProperties = memo(function LayoutProperties({
  node,
  edit,
  t,
}: {
  node: Exclude<DesignNode, FieldNode>;
  edit: Edit;
  t: Translate;
}) {
  const update = (key: string, change: (item: DesignNode) => DesignNode): void =>
    edit(`${key}:${node.id}`, (model) => updateNode(model, node.id, change));
  switch (node.kind) {
    case 'grid':
      return (
        <>
          <Item id="fd-columns" label={t('formDesigner.prop.columns')}>
            <InputNumber
              id="fd-columns"
              min={1}
              max={6}
              value={node.columns.length}
              onChange={(value) =>
                value && edit(`columns:${node.id}`, (model) => setColumnCount(model, node.id, value))
              }
            />
          </Item>
          {node.columns.map((column, index) => (
            <Item
              key={column.id}
              id={`fd-col-${index}`}
              label={t('formDesigner.prop.columnSpan', { n: index + 1 })}
            >
              <InputNumber
                id={`fd-col-${index}`}
                min={1}
                max={24}
                value={column.span}
                onChange={(value) =>
                  value &&
                  edit(`span${index}:${node.id}`, (model) => setColumnSpan(model, node.id, index, value))
                }
              />
            </Item>
          ))}
        </>
      );
    case 'group':
    case 'divider':
      return (
        <TitleInputs
          prefix="fd-layout"
          title={node.title}
          titles={node.titles}
          onTitle={(value) => update('title', (item) => withKey(item, 'title', value))}
          onTitles={(value) => update('titles', (item) => withKey(item, 'titles', value))}
          t={t}
        />
      );
    case 'text':
      return (
        <Item id="fd-text" label={t('formDesigner.prop.text')}>
          <Input.TextArea
            id="fd-text"
            rows={3}
            value={node.text}
            onChange={(event) =>
              update('text', (item) => ({ ...item, text: event.target.value }) as DesignNode)
            }
          />
        </Item>
      );
  }
});

/** A problem of an expression over the form's fields, in the designer's words (undefined: none). */
function expressionHelp(text: string, names: readonly string[], t: Translate): string | undefined {
  if (text.trim() === '') return undefined;
  const problem = expressionProblem(text, new Set(names));
  return problem ? t('formDesigner.prop.expressionProblem', { problem }) : undefined;
}

/**
 * A field computed from the others (x-computed): its expression and whether it is stored (a
 * column the list can sort and filter by) or computed when read.
 */
function ComputedProperty({
  computed,
  names,
  onChange,
  t,
}: {
  computed: ComputedOptions | undefined;
  names: readonly string[];
  onChange: (value: ComputedOptions | undefined) => void;
  t: Translate;
}) {
  const expression = computed?.expression ?? '';
  return (
    <>
      <Item
        id="fd-computed"
        label={t('formDesigner.prop.computed')}
        help={expressionHelp(expression, names, t) ?? t('formDesigner.prop.computedHelp')}
      >
        <Input
          id="fd-computed"
          value={expression}
          placeholder="budget * 1.13"
          data-testid="prop-computed"
          onChange={(event) => {
            const text = event.target.value;
            onChange(text ? { ...computed, expression: text } : undefined);
          }}
        />
      </Item>
      {computed ? (
        <Item id="fd-computed-stored" label={t('formDesigner.prop.computedStored')}>
          <Switch
            id="fd-computed-stored"
            checked={computed.stored === true}
            data-testid="prop-computed-stored"
            onChange={(checked) => onChange({ expression, ...(checked ? { stored: true } : {}) })}
          />
        </Item>
      ) : null}
    </>
  );
}

/**
 * The form's cross-field rules (x-rules): each an expression, the message shown under its fields
 * when it comes out false (the designer's own text, as titles are), and the fields it names.
 */
function RulesProperty({
  rules,
  names,
  onChange,
  t,
}: {
  rules: readonly RecordRule[];
  names: readonly string[];
  onChange: (rules: RecordRule[] | undefined) => void;
  t: Translate;
}) {
  const change = (index: number, rule: RecordRule): void =>
    onChange(rules.map((item, at) => (at === index ? rule : item)));
  return (
    <div className="formdesign-rules" data-testid="prop-rules">
      <Typography.Text strong>{t('formDesigner.prop.rules')}</Typography.Text>
      {rules.map((rule, index) => (
        <div key={index} className="formdesign-rule" data-testid={`prop-rule-${index}`}>
          <Item
            id={`fd-rule-${index}-expression`}
            label={t('formDesigner.prop.ruleExpression')}
            help={expressionHelp(rule.expression, names, t)}
          >
            <Input
              id={`fd-rule-${index}-expression`}
              value={rule.expression}
              placeholder="endDate >= startDate"
              onChange={(event) => change(index, { ...rule, expression: event.target.value })}
            />
          </Item>
          <Item id={`fd-rule-${index}-message`} label={t('formDesigner.prop.ruleMessage')}>
            <Input
              id={`fd-rule-${index}-message`}
              value={rule.message}
              onChange={(event) => change(index, { ...rule, message: event.target.value })}
            />
          </Item>
          <Item id={`fd-rule-${index}-fields`} label={t('formDesigner.prop.ruleFields')}>
            <Select
              id={`fd-rule-${index}-fields`}
              mode="multiple"
              allowClear
              value={rule.fields ?? []}
              options={names.map((name) => ({ value: name, label: name }))}
              onChange={(fields: string[]) => {
                const { fields: _old, ...rest } = rule;
                change(index, fields.length > 0 ? { ...rest, fields } : rest);
              }}
            />
          </Item>
          <Button
            size="small"
            danger
            onClick={() => {
              const next = rules.filter((_, at) => at !== index);
              onChange(next.length > 0 ? next : undefined);
            }}
          >
            {t('formDesigner.prop.removeRule')}
          </Button>
        </div>
      ))}
      <Button
        size="small"
        data-testid="prop-add-rule"
        onClick={() => onChange([...rules, { expression: '', message: '' }])}
      >
        {t('formDesigner.prop.addRule')}
      </Button>
    </div>
  );
}

const FormProperties = memo(function FormProperties({
  root: rootSchema,
  form,
  names,
  edit,
  t,
}: {
  root: DesignModel['root'];
  form: DesignModel['form'];
  names: readonly string[];
  edit: Edit;
  t: Translate;
}) {
  const root = rootSchema as { title?: string; description?: string; 'x-entity'?: EntityOptions };
  const entity = root['x-entity'];
  const code = entity?.api.split('/').pop() ?? '';
  const setForm = (key: keyof FormUiHints, value: unknown): void =>
    edit(`form.${key}`, (model) => ({ ...model, form: withKey(model.form, key, value) }));
  return (
    <>
      <Item
        id="fd-form-code"
        label={t('formDesigner.prop.formCode')}
        help={/^[a-z][a-z0-9]*$/.test(code) ? undefined : t('formDesigner.nameProblem.code')}
      >
        <Input
          id="fd-form-code"
          value={code}
          data-testid="prop-form-code"
          onChange={(event) => {
            const next = event.target.value;
            if (!entity) return;
            edit('form.code', (model) =>
              withRoot(model, { 'x-entity': { ...entity, api: `form/${next}`, table: `form_${next}` } }),
            );
          }}
        />
      </Item>
      <TitleInputs
        prefix="fd-form"
        title={root.title}
        titles={form.titles}
        onTitle={(value) => edit('form.title', (model) => withRoot(model, { title: value ?? '' }))}
        onTitles={(value) => setForm('titles', value)}
        t={t}
      />
      <Item id="fd-form-description" label={t('formDesigner.prop.description')}>
        <Input.TextArea
          id="fd-form-description"
          rows={2}
          value={root.description ?? ''}
          onChange={(event) =>
            edit('form.description', (model) =>
              withRoot(model, { description: event.target.value || undefined }),
            )
          }
        />
      </Item>
      <Item id="fd-form-layout" label={t('formDesigner.prop.formLayout')}>
        <Radio.Group
          id="fd-form-layout"
          value={form.layout ?? 'vertical'}
          onChange={(event) =>
            setForm('layout', event.target.value === 'vertical' ? undefined : event.target.value)
          }
          options={[
            { value: 'vertical', label: t('formDesigner.prop.vertical') },
            { value: 'horizontal', label: t('formDesigner.prop.horizontal') },
          ]}
        />
      </Item>
      <Item id="fd-form-labelWidth" label={t('formDesigner.prop.labelWidth')}>
        <InputNumber
          id="fd-form-labelWidth"
          min={40}
          max={400}
          value={form.labelWidth ?? null}
          onChange={(value) => setForm('labelWidth', value ?? undefined)}
        />
      </Item>
      <Item id="fd-form-size" label={t('formDesigner.prop.size')}>
        <Select
          id="fd-form-size"
          allowClear
          value={form.size}
          onChange={(value: string | undefined) => setForm('size', value)}
          options={(['small', 'middle', 'large'] as const).map((size) => ({
            value: size,
            label: t(`formDesigner.size.${size}`),
          }))}
        />
      </Item>
      <Item
        id="fd-form-softDelete"
        label={t('formDesigner.prop.softDelete')}
        help={t('formDesigner.prop.softDeleteHelp')}
      >
        <Switch
          id="fd-form-softDelete"
          checked={entity?.softDelete === true}
          data-testid="prop-soft-delete"
          onChange={(checked) => {
            if (!entity) return;
            const { softDelete: _off, ...rest } = entity;
            edit('form.softDelete', (model) =>
              withRoot(model, { 'x-entity': checked ? { ...rest, softDelete: true } : rest }),
            );
          }}
        />
      </Item>
      <WorkflowProperty
        value={entity?.workflow?.process}
        onChange={(process) => {
          if (!entity) return;
          const { workflow, ...rest } = entity;
          edit('form.workflow', (model) =>
            withRoot(model, {
              'x-entity': process
                ? // the edits of the tasks stay with their process only
                  { ...rest, workflow: workflow?.process === process ? workflow : { process } }
                : rest,
            }),
          );
        }}
        t={t}
      />
      <RulesProperty
        rules={(rootSchema as { 'x-rules'?: RecordRule[] })['x-rules'] ?? []}
        names={names}
        onChange={(rules) => edit('form.rules', (model) => withRoot(model, { 'x-rules': rules }))}
        t={t}
      />
    </>
  );
});

/**
 * 审批流程 (x-entity.workflow.process): one of the tenant's deployed processes (the latest version
 * of each key; every signed-in user may list them). The published list then has the approval
 * status and 提交审批; 校验 and 发布 refuse a key the tenant has not deployed.
 */
function WorkflowProperty({
  value,
  onChange,
  t,
}: {
  value: string | undefined;
  onChange: (process: string | undefined) => void;
  t: Translate;
}) {
  const definitions = useApiGet<Page<WfDefinition>>('/api/activiti/processdefinition/query', {
    latestOnly: 'true',
    pageSize: '1000',
  });
  const options = useMemo(() => {
    const found = (definitions.data?.records ?? []).map((definition) => ({
      value: definition.key,
      label:
        definition.name && definition.name !== definition.key
          ? `${definition.name} (${definition.key})`
          : definition.key,
    }));
    // a key the list does not hold (not deployed any more) is shown as it is, for 校验 to name
    return value && !found.some((option) => option.value === value)
      ? [{ value, label: value }, ...found]
      : found;
  }, [definitions.data, value]);
  return (
    <Item id="fd-form-workflow" label={t('formDesigner.prop.workflow')}>
      <Select
        id="fd-form-workflow"
        data-testid="prop-workflow"
        allowClear
        showSearch
        optionFilterProp="label"
        loading={definitions.isLoading}
        placeholder={t('formDesigner.prop.workflowNone')}
        value={value}
        onChange={(next: string | undefined) => onChange(next || undefined)}
        options={options}
      />
      <Typography.Text type="secondary" className="formdesign-prop-hint">
        {t('formDesigner.prop.workflowHelp')}
      </Typography.Text>
    </Item>
  );
}

/** The fields a condition may name (not the field itself, no arrays or objects). */
function useOtherFields(model: DesignModel): readonly OtherField[] {
  const language = useLanguage();
  const all = fieldNodes(model.items)
    .filter((other) => other.schema.type !== 'array' && other.schema.type !== 'object')
    .map((other) => ({
      id: other.id,
      name: other.name,
      label: titleIn(
        { title: other.schema.title ?? other.name, titles: other.schema['x-ui']?.titles },
        language,
      ),
      schema: { type: other.schema.type, enum: other.schema.enum },
    }));
  // The same list while names, types and options stay: a title typed does not repaint the panel twice.
  const signature = JSON.stringify(all);
  return useMemo(() => JSON.parse(signature) as (OtherField & { id: string })[], [signature]);
}

/**
 * The properties of the selected item, or of the form when nothing is selected. A new selection
 * is shown a moment after the canvas paints it (a deferred value): a drop or a click is seen at
 * once, and the panel's inputs follow.
 */
export function PropertyPanel({
  model,
  selectedId: currentId,
  edit,
  getModel,
  t,
}: {
  model: DesignModel;
  selectedId: string | undefined;
  edit: Edit;
  getModel: () => DesignModel;
  t: Translate;
}) {
  const selectedId = useDeferredValue(currentId);
  const node = selectedId ? locate(model.items, selectedId)?.node : undefined;
  const allOthers = useOtherFields(model);
  const allNames = useMemo(() => allOthers.map((other) => other.name), [allOthers]);
  const fieldId = node?.kind === 'field' ? node.id : undefined;
  const others = useMemo(
    () => (allOthers as (OtherField & { id: string })[]).filter((other) => other.id !== fieldId),
    [allOthers, fieldId],
  );
  return (
    <section className="formdesign-properties" aria-label={t('formDesigner.properties')}>
      <h3>
        {node
          ? node.kind === 'field'
            ? t(`formDesigner.kind.${kindOf(node.schema)}`)
            : t(`formDesigner.layoutKind.${node.kind}`)
          : t('formDesigner.formProperties')}
      </h3>
      <ConfigProvider componentSize="small">
        {!node ? (
          <FormProperties root={model.root} form={model.form} names={allNames} edit={edit} t={t} />
        ) : null}
        {node?.kind === 'field' ? (
          <FieldProperties key={node.id} field={node} others={others} edit={edit} getModel={getModel} t={t} />
        ) : null}
        {node && node.kind !== 'field' ? <LayoutProperties node={node} edit={edit} t={t} /> : null}
      </ConfigProvider>
    </section>
  );
}
