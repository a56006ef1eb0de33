import type { RegistryWidgetsType, WidgetProps } from '@rjsf/utils';
import { Checkbox, DatePicker, Input, InputNumber, Radio, Select, Switch, TreeSelect } from 'antd';
import dayjs from 'dayjs';
import { useEffect, useMemo, useRef, useState, type ChangeEvent, type KeyboardEvent } from 'react';
import type { FormFieldOptions } from '../../engine/index.js';
import { useT } from '../i18n.js';
import { stringOptions, useDebouncedSearch, useDictOptions, useRefOptions } from './options.js';
import { useLazyTreeOptions } from './lazy-tree.js';
import { RecipientsWidget } from './RecipientsWidget.js';
import { ImageWidget, UploadWidget } from './FileWidgets.js';
import { RichTextWidget } from './RichTextWidget.js';

/**
 * The widgets of the generated form. Typing must not re-render the whole form (a 100-field form
 * stays under one frame per keystroke): text widgets keep what is typed in their own state and
 * hand it to RJSF when the user pauses, leaves the field or presses Enter.
 */

const COMMIT_DELAY_MS = 400;
const FULL_WIDTH = { width: '100%' } as const;

type Props = WidgetProps;

function fieldOptions(props: Props): FormFieldOptions {
  return props.options as unknown as FormFieldOptions;
}

/** The value a form keeps for an emptied field: undefined, so that required fields say so. */
function emptyToUndefined(text: string): string | undefined {
  return text === '' ? undefined : text;
}

/** Local text state committed to RJSF after a pause, on blur and on Enter. */
function useDeferredText(props: Props, toValue: (text: string) => unknown = emptyToUndefined) {
  const { value, onChange, onBlur, id } = props;
  const shown = value === undefined || value === null ? '' : String(value);
  const [text, setText] = useState(shown);
  const committed = useRef(shown);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // A value set from outside (reset, server answer) replaces what is shown.
  useEffect(() => {
    if (shown !== committed.current) {
      committed.current = shown;
      setText(shown);
    }
  }, [shown]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const commit = (next: string): void => {
    clearTimeout(timer.current);
    if (next === committed.current) return;
    committed.current = next;
    onChange(toValue(next));
  };
  return {
    value: text,
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
      const next = event.target.value;
      setText(next);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => commit(next), COMMIT_DELAY_MS);
    },
    onBlur: () => {
      commit(text);
      // after the committed value is the form's state, so that blur validation sees it
      const value = toValue(text);
      setTimeout(() => onBlur(id, value), 0);
    },
    onKeyDown: (event: KeyboardEvent) => {
      if (event.key === 'Enter') commit(text);
    },
  };
}

function inputProps(props: Props) {
  return {
    id: props.id,
    name: props.htmlName ?? props.id,
    disabled: props.disabled || props.readonly,
    placeholder: props.placeholder,
    maxLength: typeof props.schema.maxLength === 'number' ? props.schema.maxLength : undefined,
    status: props.rawErrors && props.rawErrors.length > 0 ? ('error' as const) : undefined,
  };
}

function TextWidget(props: Props) {
  const deferred = useDeferredText(props);
  return <Input {...inputProps(props)} {...deferred} allowClear />;
}

function PasswordWidget(props: Props) {
  const deferred = useDeferredText(props);
  return <Input.Password {...inputProps(props)} {...deferred} autoComplete="new-password" />;
}

function TextareaWidget(props: Props) {
  const deferred = useDeferredText(props);
  const rows = fieldOptions(props).rows ?? 4;
  return <Input.TextArea {...inputProps(props)} {...deferred} rows={rows} showCount />;
}

function UpDownWidget(props: Props) {
  const isInteger = props.schema.type === 'integer';
  // An exact number (decimal, int64) stays the text typed: no float on the way to the server.
  const exact = fieldOptions(props).exact;
  const deferred = useDeferredText(props, (text) => {
    if (text.trim() === '') return undefined;
    if (exact) return text.trim();
    const number = Number(text);
    return Number.isNaN(number) ? text : number;
  });
  return (
    <InputNumber<string>
      {...inputProps(props)}
      style={FULL_WIDTH}
      stringMode
      precision={exact ? exact.precision : isInteger ? 0 : undefined}
      {...(exact?.min !== undefined ? { min: exact.min } : {})}
      {...(exact?.max !== undefined ? { max: exact.max } : {})}
      value={deferred.value}
      onChange={(next) =>
        deferred.onChange({ target: { value: next ?? '' } } as ChangeEvent<HTMLInputElement>)
      }
      onBlur={deferred.onBlur}
      onKeyDown={deferred.onKeyDown}
    />
  );
}

/** Objects and arrays without a better widget: JSON text, parsed when the user leaves it. */
function JsonWidget(props: Props) {
  const toValue = (text: string): unknown => {
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text; // the schema names the field: "must be of type object"
    }
  };
  const shown =
    props.value === undefined || props.value === null
      ? ''
      : typeof props.value === 'string'
        ? props.value
        : JSON.stringify(props.value, null, 2);
  const deferred = useDeferredText({ ...props, value: shown }, toValue);
  return <Input.TextArea {...inputProps(props)} {...deferred} rows={4} className="entity-form-json" />;
}

function SwitchWidget(props: Props) {
  return (
    <Switch
      id={props.id}
      checked={props.value === true}
      disabled={props.disabled || props.readonly}
      onChange={(checked) => choose(props, checked)}
    />
  );
}

function DateWidget(props: Props) {
  const isDateTime = props.schema.format === 'date-time';
  const value = typeof props.value === 'string' && props.value ? dayjs(props.value) : null;
  return (
    <DatePicker
      id={props.id}
      style={FULL_WIDTH}
      showTime={isDateTime}
      disabled={props.disabled || props.readonly}
      value={value}
      onChange={(date) => {
        if (!date) choose(props, undefined);
        else choose(props, isDateTime ? date.toISOString() : date.format('YYYY-MM-DD'));
      }}
    />
  );
}

/** A date range (a designed form's field): the two dates as an array of YYYY-MM-DD. */
function DateRangeWidget(props: Props) {
  const dates = Array.isArray(props.value) ? (props.value as unknown[]) : [];
  const [from, to] = dates.map((date) => (typeof date === 'string' && date ? dayjs(date) : null));
  return (
    <DatePicker.RangePicker
      id={props.id}
      style={FULL_WIDTH}
      disabled={props.disabled || props.readonly}
      value={from && to ? [from, to] : null}
      onChange={(range) => {
        const [start, end] = range ?? [];
        choose(props, start && end ? [start.format('YYYY-MM-DD'), end.format('YYYY-MM-DD')] : undefined);
      }}
    />
  );
}

/**
 * A chosen value is committed at once and validated as a text field is on leaving it: an error
 * under a select (请选择角色) goes the moment a value is picked, not at the next submit.
 */
function choose(props: Props, value: unknown): void {
  props.onChange(value);
  setTimeout(() => props.onBlur(props.id, value), 0);
}

/** Option values come as strings from dictionaries: give them the field's own type. */
function typed(props: Props, value: unknown): unknown {
  const type =
    props.schema.type === 'array' ? (props.schema.items as { type?: string })?.type : props.schema.type;
  if (value === undefined || value === null || value === '') return undefined;
  if (type === 'integer' || type === 'number') return Number(value);
  return typeof value === 'string' ? value : String(value);
}

function typedValue(props: Props, value: unknown): unknown {
  return Array.isArray(value) ? value.map((item) => typed(props, item)) : typed(props, value);
}

/** Antd wants the option values and the field's value of one type: compare as strings. */
function asStrings(value: unknown): string | string[] | undefined {
  if (value === undefined || value === null) return undefined;
  return Array.isArray(value) ? value.map(String) : String(value);
}

/** What every select of the form shares: id, width, state, clearing and its placeholder. */
function choiceProps(props: Props, t: ReturnType<typeof useT>) {
  return {
    id: props.id,
    style: FULL_WIDTH,
    disabled: props.disabled || props.readonly,
    allowClear: true,
    placeholder: t('admin.crud.selectPlaceholder', { field: props.label }),
  };
}

function DictSelectWidget(props: Props) {
  const t = useT();
  const options = fieldOptions(props);
  const items = stringOptions(useDictOptions(options.dict));
  const disabled = props.disabled || props.readonly;
  const change = (value: unknown): void => choose(props, typedValue(props, value));
  if (options.display === 'radio') {
    return (
      <Radio.Group
        id={props.id}
        disabled={disabled}
        options={items}
        value={asStrings(props.value)}
        onChange={(event) => change(event.target.value)}
      />
    );
  }
  if (options.display === 'checkboxes' || (options.isMultiple && items.length <= 8 && items.length > 0)) {
    return (
      <div id={props.id}>
        <Checkbox.Group
          disabled={disabled}
          options={items}
          value={(asStrings(props.value) as string[] | undefined) ?? []}
          onChange={(values) => change(values)}
        />
      </div>
    );
  }
  return (
    <Select
      {...choiceProps(props, t)}
      mode={options.isMultiple ? 'multiple' : undefined}
      options={items}
      value={asStrings(props.value)}
      onChange={change}
    />
  );
}

function RefSelectWidget(props: Props) {
  const t = useT();
  const ref = fieldOptions(props).ref ?? '';
  const [search, setTypedSearch] = useDebouncedSearch();
  const selected = useMemo(
    () => (Array.isArray(props.value) ? props.value : props.value === undefined ? [] : [props.value]),
    [props.value],
  );
  const options = stringOptions(useRefOptions(ref, search, selected));
  return (
    <Select
      {...choiceProps(props, t)}
      showSearch
      filterOption={false}
      onSearch={setTypedSearch}
      mode={fieldOptions(props).isMultiple ? 'multiple' : undefined}
      options={options}
      value={asStrings(props.value)}
      onChange={(value) => choose(props, typedValue(props, value))}
    />
  );
}

function RefTreeSelectWidget(props: Props) {
  const t = useT();
  const options = fieldOptions(props);
  // A large tree comes one level at a time, children loaded on expand (lazy-tree.ts).
  const { options: tree, loadData } = useLazyTreeOptions(options.ref ?? '');
  const treeData = useMemo(() => {
    interface Node {
      value: string;
      title: string;
      isLeaf?: boolean;
      children?: Node[];
    }
    const toStrings = (nodes: typeof tree): Node[] =>
      nodes.map((node) => ({
        value: String(node.value),
        title: node.title,
        ...(node.isLeaf === undefined ? {} : { isLeaf: node.isLeaf }),
        ...(node.children ? { children: toStrings(node.children) } : {}),
      }));
    const nodes = toStrings(tree);
    const root: Node = { value: String(options.root), title: t('admin.form.root'), isLeaf: true };
    return options.root === undefined ? nodes : [root, ...nodes];
  }, [tree, options.root, t]);
  return (
    <TreeSelect
      {...choiceProps(props, t)}
      showSearch
      treeNodeFilterProp="title"
      treeData={treeData}
      loadData={loadData}
      value={asStrings(props.value) as string | undefined}
      onChange={(value: unknown) => choose(props, typedValue(props, value))}
    />
  );
}

export const FORM_WIDGETS: RegistryWidgetsType = {
  TextWidget,
  text: TextWidget,
  icon: TextWidget,
  password: PasswordWidget,
  PasswordWidget,
  textarea: TextareaWidget,
  TextareaWidget,
  image: ImageWidget,
  upload: UploadWidget,
  richtext: RichTextWidget,
  updown: UpDownWidget,
  json: JsonWidget,
  switch: SwitchWidget,
  CheckboxWidget: SwitchWidget,
  date: DateWidget,
  datetime: DateWidget,
  dateRange: DateRangeWidget,
  dictSelect: DictSelectWidget,
  refSelect: RefSelectWidget,
  refTreeSelect: RefTreeSelectWidget,
  recipients: RecipientsWidget,
};
