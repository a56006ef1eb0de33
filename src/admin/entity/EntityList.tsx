import { useTable } from '@refinedev/antd';
import { useDeleteMany, type BaseRecord } from '@refinedev/core';
import { App, Button, Card, Drawer, Result, Space, Spin, Table, Tag, Tooltip } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { listColumns, listFilters, type EntityDef, type ListColumn } from '../../engine/index.js';
import { useT } from '../i18n.js';
import type { AppRoute } from '../lib/menus.js';
import { routeTitle } from '../i18n.js';
import type { ResourceApi } from '../providers/resources.js';
import { sortParam } from '../providers/data.js';
import { useCanButton, useTree } from '../screens/api.js';
import { useLazyTreeRows } from './lazy-tree.js';
import { HISTORY_ACTION, RECORD_ACTIONS, type RecordAction } from './extensions.js';
import { useExport } from './export.js';
import { FilterBar } from './FilterBar.js';
import { ListTotal } from './ListTotal.js';
import { filtersOf, type FilterValues } from './filters.js';
import { cellText, titleOf, type LabelLookup } from './labels.js';
import { useLabelLookups } from './lookups.js';
import { usePageFileLinks, withFileCells } from './file-cells.js';
import { useResources } from './resources.js';
import { FIRST_PAGE_SIZE } from '../providers/warm.js';
import { useApp } from '../store.js';

import './entity.css';

const EntityForm = lazy(() => import('./EntityForm.js'));
const ImportDialog = lazy(() => import('./ImportDialog.js'));

/** Above this many rows the table renders only what is on screen. */
const VIRTUAL_FROM = 200;
const DEFAULT_COLUMN_WIDTH = 160;
/** Height of the fixed header (navbar 50, tags 34) that a sticky table head stays below. */
const NAVBAR_HEIGHT = 50;
const TAGS_HEIGHT = 34;

/** A column's width: the schema's, else one that suits what it shows (a tag, a date, a text). */
function widthOf(column: ListColumn): number {
  if (column.width !== undefined) return column.width;
  if (column.dict) return 110;
  if (column.format === 'date-time') return 170;
  if (column.format === 'date') return 110;
  if (column.display === 'amount') return 150;
  return DEFAULT_COLUMN_WIDTH;
}
const PAGE_SIZES = ['10', '20', '50', '100', '1000', '10000'];

/**
 * The rows a person opened in a tree list, kept for the browser tab's session: coming back to
 * 行政区域 or 组织机构 (a closed tag, a reload) shows the tree as it was left, not folded up.
 */
function useExpandedRows(entity: string): [readonly React.Key[], (keys: readonly React.Key[]) => void] {
  const storageKey = `admin.expanded.${entity}`;
  const [keys, setKeys] = useState<readonly React.Key[]>(() => {
    try {
      const stored: unknown = JSON.parse(sessionStorage.getItem(storageKey) ?? '[]');
      return Array.isArray(stored) ? stored.filter((key): key is string => typeof key === 'string') : [];
    } catch {
      return [];
    }
  });
  const remember = (next: readonly React.Key[]): void => {
    sessionStorage.setItem(storageKey, JSON.stringify(next.map(String)));
    setKeys(next);
  };
  return [keys, remember];
}

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
      width: widthOf(column),
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
  const app = useApp();
  const { message, modal } = App.useApp();
  const can = useCanButton(route.code);
  const columns = useMemo(() => listColumns(entity).filter((column) => column.isVisible), [entity]);
  const filters = useMemo(() => listFilters(entity), [entity]);
  const keyName = entity.key.name;
  // Which list (its filters) the exact count was asked for: another filter shows its estimate again.
  const [exactCountOf, setExactCountOf] = useState<string | undefined>();
  const [countKey, setCountKey] = useState('');

  const {
    tableProps,
    searchFormProps,
    filters: activeFilters,
    sorters,
    tableQuery,
  } = useTable<BaseRecord, { message: string; statusCode: number }, FilterValues>({
    resource: entity.name,
    syncWithLocation: false,
    pagination: { pageSize: FIRST_PAGE_SIZE },
    // The user asked for the exact count of an estimated total (a click on 「约 … 条」).
    ...(exactCountOf === countKey ? { meta: { params: { totalExact: 'true' } } } : {}),
    // The filter bar holds every filter of the list: what it leaves out (重置) is no filter.
    filters: { defaultBehavior: 'replace' },
    onSearch: (values) => filtersOf(filters, values),
  });
  const listAnswer = tableQuery.data;
  // The table's scrolling body (a wide or virtual table, also when it is empty) is a named region
  // reached with Tab, so that it scrolls from the keyboard (WCAG 2.1.1, axe scrollable-region-focusable).
  const tableBox = useRef<HTMLDivElement>(null);
  const regionName = t('admin.crud.tableRegion', { title: routeTitle(route) });
  useEffect(() => {
    const scrollers = tableBox.current?.querySelectorAll<HTMLElement>(
      '.ant-table-content, .ant-table-body, .ant-table-tbody-virtual-holder',
    );
    scrollers?.forEach((scroller) => {
      scroller.tabIndex = 0;
      scroller.setAttribute('role', 'region');
      scroller.setAttribute('aria-label', regionName);
    });
  });
  const filterKey = JSON.stringify(activeFilters);
  if (filterKey !== countKey) setCountKey(filterKey);
  const isCountTimedOut = listAnswer?.countTimedOut === true;
  useEffect(() => {
    if (isCountTimedOut) void message.warning(t('admin.crud.countTimedOut'));
  }, [isCountTimedOut, message, t]);
  // Tree entities show their whole tree until a filter narrows them to a flat, paged list.
  const isTree = api.treeEndpoint !== undefined && activeFilters.length === 0;
  const tree = useTree<BaseRecord>(entity.name, isTree);
  const [expandedKeys, setExpandedKeys] = useExpandedRows(entity.name);
  // A large tree comes one level at a time: expanded nodes get their children loaded (lazy-tree.ts).
  const treeRows = useLazyTreeRows(entity.name, keyName, tree.data, expandedKeys);
  const records = useMemo(
    () => (isTree ? treeRows : [...(tableProps.dataSource ?? [])]),
    [isTree, treeRows, tableProps.dataSource],
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
  const fileLinks = usePageFileLinks(shownColumns, allRecords);
  const tableColumns = useMemo(
    () => withFileCells(columnsOf(shownColumns, lookups, t, !isTree), shownColumns, fileLinks),
    [shownColumns, lookups, t, isTree, fileLinks],
  );

  const [selectedKeys, setSelectedKeys] = useState<React.Key[]>([]);
  const [form, setForm] = useState<FormState>(undefined);
  const [action, setAction] = useState<{ action: RecordAction; record: BaseRecord } | undefined>();
  const { mutateAsync: deleteMany } = useDeleteMany();
  const exporter = useExport(api, entity);
  const [isImporting, setImporting] = useState(false);

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
  const actions = [...(RECORD_ACTIONS[entity.name] ?? []), HISTORY_ACTION].filter(
    (item) => !item.button || can(item.button),
  );
  const isVirtual = records.length > VIRTUAL_FROM;
  const headerOffset = app.settings.fixedHeader
    ? NAVBAR_HEIGHT + (app.settings.tagsView ? TAGS_HEIGHT : 0)
    : 0;
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
        {can('add') ? (
          // Importing adds records: the add button's grant covers it (the server checks the URL).
          <Button onClick={() => setImporting(true)} data-testid="entity-import">
            {t('import.button')}
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
      <div ref={tableBox}>
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
                  showTotal: (total) => (
                    <ListTotal
                      total={total}
                      isExact={listAnswer?.totalExact !== false}
                      isCounting={exactCountOf === countKey && tableQuery.isFetching}
                      onCountExactly={() => setExactCountOf(countKey)}
                    />
                  ),
                }
          }
          rowKey={(record) => String(record[keyName])}
          columns={tableColumns}
          rowSelection={{
            selectedRowKeys: selectedKeys,
            onChange: setSelectedKeys,
            checkStrictly: true,
            // each row's checkbox is named after its record (WCAG 4.1.2); antd puts the title on the input
            getCheckboxProps: (record) => ({
              title: t('admin.crud.selectRow', { label: String(record[entity.label] ?? record[keyName]) }),
            }),
          }}
          expandable={
            isTree ? { expandedRowKeys: expandedKeys, onExpandedRowsChange: setExpandedKeys } : undefined
          }
          onRow={(record) => ({
            onDoubleClick: () => {
              if (can('update')) setForm({ mode: 'update', record });
            },
          })}
          virtual={isVirtual}
          scroll={isVirtual ? { x: width, y: 560 } : { x: 'max-content' }}
          // A wide table's scrollbar stays at the window's bottom, so its last columns are in reach
          // without scrolling past twenty rows first; the head stays under the fixed header.
          sticky={isVirtual ? undefined : { offsetHeader: headerOffset }}
          size="middle"
          data-testid="entity-table"
        />
      </div>
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
      {isImporting ? (
        <Suspense fallback={<Spin />}>
          <ImportDialog
            api={api}
            title={routeTitle(route)}
            onClose={(hasImported) => {
              setImporting(false);
              if (hasImported) refresh();
            }}
          />
        </Suspense>
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
