import { Input, Select } from 'antd';
import { useState } from 'react';
import type { ReportField } from '../../../../engine/index.js';
import { stringOptions, useDictOptions, useRefOptions } from '../../../entity/options.js';
import { useT } from '../../../i18n.js';

interface Props {
  /** The field filtered on, once one is chosen. */
  field: ReportField | undefined;
  value: string;
  onChange: (value: string) => void;
}

/**
 * The value of one report filter, picked the way the entity's own list filter picks it: a
 * dictionary's items or a referenced record by its label, yes or no; dates and free text typed.
 */
export function ReportFilterValue({ field, value, onChange }: Props) {
  if (field?.dict !== undefined) return <DictValue dict={field.dict} value={value} onChange={onChange} />;
  if (field?.ref !== undefined) return <RefValue target={field.ref} value={value} onChange={onChange} />;
  if (field?.kind === 'boolean') return <BooleanValue value={value} onChange={onChange} />;
  return <TypedValue isDate={field?.kind === 'date'} value={value} onChange={onChange} />;
}

interface ValueProps {
  value: string;
  onChange: (value: string) => void;
}

function DictValue({ dict, value, onChange }: ValueProps & { dict: string }) {
  const t = useT();
  const options = stringOptions(useDictOptions(dict));
  return (
    <Select
      aria-label={t('report.filterValue')}
      style={{ width: 200 }}
      allowClear
      showSearch
      optionFilterProp="label"
      placeholder={t('report.pickValue')}
      value={value === '' ? undefined : value}
      onChange={(picked?: string) => onChange(picked ?? '')}
      options={options}
    />
  );
}

function RefValue({ target, value, onChange }: ValueProps & { target: string }) {
  const t = useT();
  const [search, setSearch] = useState('');
  const options = stringOptions(useRefOptions(target, search, value === '' ? [] : [value]));
  return (
    <Select
      aria-label={t('report.filterValue')}
      style={{ width: 200 }}
      allowClear
      showSearch
      filterOption={false}
      onSearch={setSearch}
      placeholder={t('report.pickValue')}
      value={value === '' ? undefined : value}
      onChange={(picked?: string) => onChange(picked ?? '')}
      options={options}
    />
  );
}

function BooleanValue({ value, onChange }: ValueProps) {
  const t = useT();
  return (
    <Select
      aria-label={t('report.filterValue')}
      style={{ width: 120 }}
      allowClear
      placeholder={t('report.pickValue')}
      value={value === '' ? undefined : value}
      onChange={(picked?: string) => onChange(picked ?? '')}
      options={[
        { value: 'true', label: t('admin.crud.yes') },
        { value: 'false', label: t('admin.crud.no') },
      ]}
    />
  );
}

function TypedValue({ isDate, value, onChange }: ValueProps & { isDate: boolean }) {
  const t = useT();
  return (
    <Input
      aria-label={t('report.filterValue')}
      value={value}
      placeholder={t(isDate ? 'report.dateRangeHint' : 'report.valueHint')}
      onChange={(event) => onChange(event.target.value)}
    />
  );
}
