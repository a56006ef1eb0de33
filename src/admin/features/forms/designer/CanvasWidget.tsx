import { PlusOutlined, UploadOutlined } from '@ant-design/icons';
import { Button, Checkbox, DatePicker, Input, InputNumber, Radio, Select, Switch, TreeSelect } from 'antd';
import { memo, useMemo } from 'react';
import type { Translate } from '../../../i18n.js';
import { useDictOptions } from '../../../entity/options.js';
import { currentWidget, kindOf, type DesignFieldSchema } from './model.js';

/**
 * A field on the canvas as the form will show it (as Designable does): the real antd widget of
 * its kind and widget, disabled — a preview, not an input — with its placeholder, its options
 * (static, or its dictionary's items) and its default. The canvas item around it takes the clicks
 * (the widget lets them through: pointer-events none), so a click selects the field.
 */
export const CanvasWidget = memo(function CanvasWidget({
  schema,
  label,
  t,
}: {
  schema: DesignFieldSchema;
  /** The field's title: the widget's accessible name. */
  label: string;
  t: Translate;
}) {
  const kind = kindOf(schema);
  const widget = currentWidget(schema);
  const ui = schema['x-ui'] ?? {};
  const placeholder = ui.placeholder;
  const dict = schema['x-dict'];
  const dictOptions = useDictOptions(dict);
  const owner = schema.type === 'array' ? schema.items : schema;
  const options = useMemo(
    () =>
      dict !== undefined
        ? dictOptions.map((option) => ({ value: String(option.value), label: option.label }))
        : (owner?.enum ?? []).map((value) => ({ value: String(value), label: String(value) })),
    [dict, dictOptions, owner?.enum],
  );
  const fallback = schema.default;
  const value = typeof fallback === 'string' || typeof fallback === 'number' ? String(fallback) : undefined;
  const common = { disabled: true, 'aria-label': label, className: 'formdesign-live-input' };
  let shown;
  switch (kind) {
    case 'textarea':
      shown = <Input.TextArea {...common} rows={ui.rows ?? 3} placeholder={placeholder} value={value} />;
      break;
    case 'richtext':
      shown = (
        <div className="formdesign-live-richtext" aria-label={label} role="img">
          <div className="formdesign-live-richtext-bar" aria-hidden>
            <b>B</b>
            <i>I</i>
            <u>U</u>
            <span>H1</span>
            <span>≡</span>
          </div>
          <div className="formdesign-live-richtext-body">{placeholder ?? ''}</div>
        </div>
      );
      break;
    case 'number':
    case 'integer':
      shown = (
        <InputNumber
          {...common}
          placeholder={placeholder}
          value={typeof fallback === 'number' ? fallback : null}
          style={{ width: '100%' }}
        />
      );
      break;
    case 'money':
      shown = (
        <InputNumber<string>
          {...common}
          stringMode
          prefix="¥"
          placeholder={placeholder}
          value={value ?? null}
          style={{ width: '100%' }}
        />
      );
      break;
    case 'select':
    case 'radio':
      shown =
        widget === 'radio' ? (
          <Radio.Group {...common} options={options} value={value} />
        ) : (
          <Select
            {...common}
            options={options}
            placeholder={placeholder}
            value={value}
            style={{ width: '100%' }}
          />
        );
      break;
    case 'checkbox':
      shown =
        widget === 'select' ? (
          <Select
            {...common}
            mode="multiple"
            options={options}
            placeholder={placeholder}
            style={{ width: '100%' }}
          />
        ) : (
          <Checkbox.Group {...common} options={options} />
        );
      break;
    case 'switch':
      shown = <Switch disabled aria-label={label} checked={fallback === true} />;
      break;
    case 'date':
      shown = <DatePicker {...common} placeholder={placeholder} style={{ width: '100%' }} />;
      break;
    case 'datetime':
      shown = <DatePicker {...common} showTime placeholder={placeholder} style={{ width: '100%' }} />;
      break;
    case 'dateRange':
      shown = <DatePicker.RangePicker disabled aria-label={label} style={{ width: '100%' }} />;
      break;
    case 'region':
    case 'org':
      shown = <TreeSelect {...common} placeholder={placeholder} treeData={[]} style={{ width: '100%' }} />;
      break;
    case 'user':
    case 'ref':
      shown = (
        <Select {...common} showSearch placeholder={placeholder} options={[]} style={{ width: '100%' }} />
      );
      break;
    case 'upload':
    case 'image':
      shown =
        widget === 'image' ? (
          <div className="formdesign-live-picture" aria-label={label} role="img">
            <PlusOutlined />
            <span>{t('formDesigner.live.upload')}</span>
          </div>
        ) : (
          <Button disabled icon={<UploadOutlined />} aria-label={label}>
            {t('formDesigner.live.upload')}
          </Button>
        );
      break;
    default:
      shown =
        widget === 'password' ? (
          <Input.Password {...common} placeholder={placeholder} />
        ) : (
          <Input {...common} placeholder={placeholder} value={value} />
        );
  }
  return (
    <div className="formdesign-live" data-widget={widget ?? kind}>
      {shown}
    </div>
  );
});
