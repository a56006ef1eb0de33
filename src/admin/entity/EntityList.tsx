import { useTable } from '@refinedev/antd';
import { useDeleteMany, type BaseRecord } from '@refinedev/core';
import { App, Button, Card, Drawer, Result, Space, Spin, Table, Tag, Tooltip } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { lazy, Suspense, useMemo, useState } from 'react';
import { listColumns, listFilters, type EntityDef, type ListColumn } from '../../engine/index.js';
import { useT } from '../i18n.js';
import type { AppRoute } from '../lib/menus.js';
import { routeTitle } from '../i18n.js';
import type { ResourceApi } from '../providers/resources.js';
import { sortParam } from '../providers/data.js';
import { useCanButton, useTree } from '../screens/api.js';
import { RECORD_ACTIONS, type RecordAction } from './extensions.js';
import { useExport } from './export.js';
import { FilterBar } from './FilterBar.js';
import { filtersOf, type FilterValues } from './filters.js';
import { cellText, titleOf, type LabelLookup } from './labels.js';
import { useLabelLookups } from './lookups.js';
import { useResources } from './resources.js';

import './entity.css';

const EntityForm = lazy(() => import('./EntityForm.js'));

/** Above this many rows the table renders only what is on screen. */
const VIRTUAL_FROM = 200;
const DEFAULT_COLUMN_WIDTH = 160;
const PAGE_SIZES = ['10', '20', '50', '100', '1000', '10000'];

type FormState = { mode: 'create' } | { mode: 'update'; record: BaseRecord } | undefined;

function columnsOf(
  columns: readonly ListColumn[],
  lookups: ReadonlyMap<string, LabelLookup>,
  t: ReturnType<typeof useT>,
  isSortable: boolean,
): ColumnsType<BaseRecord> {
  return columns.map((column) => {
    const label = lookups.get(column.field);
    return {
      key: column.field,
      dataIndex: column.field,
      title: titleOf(t, column.titleKeys, column.fallbackTitle),
      width: column.width ?? DEFAULT_COLUMN_WIDTH,
      fixed: column.fixed,
      ellipsis: true,
      sorter: isSortable && column.isSortable,
      render: (value: unknown) => {
        const text = cellText(column, value, t, label);
        return column.dict && text ? <Tag>{text}</Tag> : text;
      },
    };
  });
}

/** Every key of a (tree) page, for finding checked records. */
function flatten(records: readonly BaseRecord[]): BaseRecord[] {
  return records.flatMap((record) => [
    record,
    ...(Array.isArray(record.children) ? flatten(record.children as BaseRecord[]) : []),
  ]);
}

function ListScreen({ api, entity, route }: { api: ResourceApi; entity: EntityDef; route: AppRoute }) {
  const t = useT();
  const { message, modal } = App.useApp();
  const can = useCanButton(route.code);
  const columns = useMemo(() => listColumns(entity).filter((column) => column.isVisible), [entity]);
  const filters = useMemo(() => listFilters(entity), [entity]);
  const keyName = entity.key.name;

  const {
    tableProps,
    searchFormProps,
    filters: activeFilters,
    sorters,
    tableQuery,
  } = useTable<BaseRecord, { message: string; statusCode: number }, FilterValues>({
    resource: entity.name,
    syncWithLocation: false,
    pagination: { pageSize: 20 },
    // The filter bar holds every filter of the list: what it leaves out (重置) is no filter.
    filters: { defaultBehavior: 'replace' },
    onSearch: (values) => filtersOf(filters, values),
  });
  // Tree entities show their whole tree until a filter narrows them to a flat, paged list.
  const isTree = api.treeEndpoint !== undefined && activeFilters.length === 0;
  const tree = useTree<BaseRecord>(entity.name, isTree);
  const records = useMemo(
    () => (isTree ? (tree.data ?? []) : [...(tableProps.dataSource ?? [])]),
    [isTree, tree.data, tableProps.dataSource],
  );
  const allRecords = useMemo(() => flatten(records), [records]);
  // A field the role may not see (data-field permission) is absent from the answers: no column.
  const shownColumns = useMemo(
    () =>
      allRecords.length === 0
        ? columns
        : columns.filter((column) => allRecords.some((record) => column.field in record)),
    [columns, allRecords],
  );
  const lookups = useLabelLookups(shownColumns, allRecords);
  const tableColumns = useMemo(
    () => columnsOf(shownColumns, lookups, t, !isTree),
    [shownColumns, lookups, t, isTree],
  );

  const [selectedKeys, setSelectedKeys] = useState<React.Key[]>([]);
  const [form, setForm] = useState<FormState>(undefined);
  const [action, setAction] = useState<{ action: RecordAction; record: BaseRecord } | undefined>();
  const { mutateAsync: deleteMany } = useDeleteMany();
  const exporter = useExport(api, entity);

  const refresh = (): void => {
    void tableQuery.refetch();
    if (isTree) void tree.refetch();
  };
  const selected = (): BaseRecord[] => {
    const keys = new Set(selectedKeys.map(String));
    return allRecords.filter((record) => keys.has(String(record[keyName])));
  };
  /** The one checked record, or a warning (SPEC §8). */
  const oneSelected = (): BaseRecord | undefined => {
    const records = selected();
    if (records.length === 0) void message.warning(t('admin.crud.checkRecord'));
    else if (records.length > 1) void message.warning(t('admin.crud.onlyOne'));
    return records.length === 1 ? records[0] : undefined;
  };
  const edit = (): void => {
    const record = oneSelected();
    if (record) setForm({ mode: 'update', record });
  };
  const remove = (): void => {
    const ids = selected().map((record) => record[keyName] as string | number);
    if (ids.length === 0) {
      void message.warning(t('admin.crud.checkToDelete'));
      return;
    }
    modal.confirm({
      title: t('admin.crud.confirmTitle'),
      content: t(ids.length === 1 ? 'admin.crud.confirmDeleteOne' : 'admin.crud.confirmDeleteMany'),
      okText: t('admin.common.confirm'),
      cancelText: t('admin.common.cancel'),
      onOk: async () => {
        await deleteMany({
          resource: entity.name,
          ids,
          successNotification: false,
          errorNotification: false,
        });
        void message.success(t('admin.crud.deleted'));
        setSelectedKeys([]);
        refresh();
      },
    });
  };
  const actions = (RECORD_ACTIONS[entity.name] ?? []).filter((item) => !item.button || can(item.button));
  const isVirtual = records.length > VIRTUAL_FROM;
  const width = tableColumns.reduce((sum, column) => sum + Number(column.width ?? DEFAULT_COLUMN_WIDTH), 64);

  return (
    <Card title={routeTitle(route)} className="admin-page entity-list" data-testid="page-title">
      <FilterBar filters={filters} formProps={searchFormProps} />
      <Space className="entity-toolbar" wrap data-testid="entity-toolbar">
        {can('add') ? (
          <Button type="primary" onClick={() => setForm({ mode: 'create' })} data-testid="entity-add">
            {t('admin.crud.add')}
          </Button>
        ) : null}
        {can('update') ? (
          <Button onClick={edit} data-testid="entity-edit">
            {t('admin.crud.edit')}
          </Button>
        ) : null}
        {can('delete') ? (
          <Button danger onClick={remove} data-testid="entity-delete">
            {t('admin.crud.delete')}
          </Button>
        ) : null}
        {can('export') ? (
          <Button
            loading={exporter.isExporting}
            onClick={() => void exporter.run(activeFilters, sortParam(sorters))}
            data-testid="entity-export"
          >
            {exporter.isExporting && exporter.percent !== undefined
              ? t('admin.crud.exporting', { percent: exporter.percent })
              : t('admin.crud.export')}
          </Button>
        ) : null}
        {actions.map((item) => (
          <Button
            key={item.key}
            onClick={() => {
              const record = oneSelected();
              if (record) setAction({ action: item, record });
            }}
            data-testid={`entity-action-${item.key}`}
          >
            {t(item.titleKey)}
          </Button>
        ))}
        <Tooltip title={t('admin.crud.refresh')}>
          <Button onClick={refresh} data-testid="entity-refresh">
            {t('admin.crud.refresh')}
          </Button>
        </Tooltip>
        {selectedKeys.length > 0 ? (
          <span className="entity-checked">{t('admin.crud.checked', { count: selectedKeys.length })}</span>
        ) : null}
      </Space>
      <Table<BaseRecord>
        {...tableProps}
        dataSource={records}
        loading={isTree ? tree.isLoading : tableProps.loading}
        pagination={
          isTree
            ? false
            : {
                ...tableProps.pagination,
                showSizeChanger: true,
                pageSizeOptions: PAGE_SIZES,
                showTotal: (total) => t('admin.crud.total', { total }),
              }
        }
        rowKey={(record) => String(record[keyName])}
        columns={tableColumns}
        rowSelection={{ selectedRowKeys: selectedKeys, onChange: setSelectedKeys, checkStrictly: true }}
        onRow={(record) => ({
          onDoubleClick: () => {
            if (can('update')) setForm({ mode: 'update', record });
          },
        })}
        virtual={isVirtual}
        scroll={isVirtual ? { x: width, y: 560 } : { x: 'max-content' }}
        size="middle"
        data-testid="entity-table"
      />
      {form ? (
        <Suspense fallback={<Spin />}>
          <EntityForm
            entity={entity}
            mode={form.mode}
            {...(form.mode === 'update' ? { record: form.record } : {})}
            onClose={(hasSaved) => {
              setForm(undefined);
              if (hasSaved) refresh();
            }}
          />
        </Suspense>
      ) : null}
      {action ? (
        <Drawer
          open
          width={action.action.width ?? 720}
          title={t(action.action.titleKey)}
          onClose={() => setAction(undefined)}
          destroyOnHidden
        >
          <Suspense fallback={<Spin />}>
            <action.action.screen
              record={action.record}
              resource={entity.name}
              onClose={(hasChanged) => {
                setAction(undefined);
                if (hasChanged) refresh();
              }}
            />
          </Suspense>
        </Drawer>
      ) : null}
    </Card>
  );
}

/**
 * The generated list screen of an entity at /admin/<name>: filter bar, toolbar, server-paged
 * and sorted table (a tree for tree entities), create/edit form and export, all from the schema.
 */
export default function EntityList({ resource, route }: { resource: string; route: AppRoute }) {
  const t = useT();
  const resources = useResources();
  if (!resources) return <Spin className="admin-page-spin" />;
  const api = resources.get(resource);
  if (!api?.entity)
    return <Result status="warning" title={t('admin.crud.unknownEntity', { name: resource })} />;
  return <ListScreen key={resource} api={api} entity={api.entity} route={route} />;
}
