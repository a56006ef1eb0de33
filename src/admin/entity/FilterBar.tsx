import { Button, DatePicker, Form, Input, InputNumber, Select, Space, type FormProps } from 'antd';
import { useState } from 'react';
import type { ListFilter } from '../../engine/index.js';
import { useT } from '../i18n.js';
import type { FilterValues } from './filters.js';
import { titleOf } from './labels.js';
import { approvalStatusText, isApprovalStatusField } from './approval.js';

import { stringOptions, useDebouncedSearch, useDictOptions, useRefOptions } from './options.js';

/** Filters shown before "Expand". */
const SHOWN_FILTERS = 4;

interface ChoiceFilterProps {
  placeholder: string;
}

function DictFilter({ dict, ...rest }: ChoiceFilterProps & { dict: string }) {
  const options = stringOptions(useDictOptions(dict));
  return <Select {...rest} allowClear options={options} className="entity-filter-select" />;
}

function RefFilter({ target, ...rest }: ChoiceFilterProps & { target: string }) {
  const [search, type] = useDebouncedSearch();
  const options = stringOptions(useRefOptions(target, search, []));
  return (
    <Select
      {...rest}
      allowClear
      showSearch
      filterOption={false}
      onSearch={type}
      options={options}
      className="entity-filter-select"
    />
  );
}

/** Form.Item hands value and onChange to its child: passed on to the control. */
function FilterInput({ filter, title, ...control }: { filter: ListFilter; title: string }) {
  const t = useT();
  const choose = t('admin.crud.selectPlaceholder', { field: title });
  switch (filter.kind) {
    case 'dateRange':
      return <DatePicker.RangePicker {...control} showTime />;
    case 'number':
      return <InputNumber {...control} placeholder={title} />;
    case 'boolean':
      return (
        <Select
          {...control}
          allowClear
          placeholder={choose}
          className="entity-filter-select"
          options={[
            { value: 'true', label: t('admin.crud.yes') },
            { value: 'false', label: t('admin.crud.no') },
          ]}
        />
      );
    case 'select':
      if (filter.dict) return <DictFilter {...control} dict={filter.dict} placeholder={choose} />;
      if (filter.ref) return <RefFilter {...control} target={filter.ref} placeholder={choose} />;
      return (
        <Select
          {...control}
          allowClear
          placeholder={choose}
          className="entity-filter-select"
          options={(filter.enum ?? []).map((value) => ({
            value: String(value),
            // the approval status the engine adds (x-entity.workflow) in the user's language
            label: isApprovalStatusField(filter.field) ? approvalStatusText(t, value) : String(value),
          }))}
        />
      );
    case 'text':
      return (
        <Input {...control} allowClear placeholder={t('admin.crud.inputPlaceholder', { field: title })} />
      );
  }
}

/** The filter bar of a generated list, derived from the schema (engine listFilters). */
export function FilterBar({
  filters,
  formProps,
}: {
  filters: readonly ListFilter[];
  formProps: FormProps<FilterValues>;
}) {
  const t = useT();
  const [isExpanded, setExpanded] = useState(false);
  if (filters.length === 0) return null;
  const shown = isExpanded ? filters : filters.slice(0, SHOWN_FILTERS);
  return (
    <Form<FilterValues> {...formProps} layout="inline" className="entity-filter-bar" data-testid="filter-bar">
      {shown.map((filter) => {
        const title = titleOf(t, filter.titleKeys, filter.fallbackTitle);
        return (
          <Form.Item key={filter.field} name={filter.field} label={title} data-filter={filter.field}>
            <FilterInput filter={filter} title={title} />
          </Form.Item>
        );
      })}
      <Form.Item>
        <Space>
          <Button type="primary" htmlType="submit" data-testid="filter-search">
            {t('admin.crud.search')}
          </Button>
          <Button
            data-testid="filter-reset"
            onClick={() => {
              formProps.form?.resetFields();
              formProps.form?.submit();
            }}
          >
            {t('admin.crud.reset')}
          </Button>
          {filters.length > SHOWN_FILTERS ? (
            <Button type="link" onClick={() => setExpanded(!isExpanded)}>
              {t(isExpanded ? 'admin.crud.collapse' : 'admin.crud.expand')}
            </Button>
          ) : null}
        </Space>
      </Form.Item>
    </Form>
  );
}
