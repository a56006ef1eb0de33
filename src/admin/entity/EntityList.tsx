import { useTable } from '@refinedev/antd';
import { useDeleteMany, type BaseRecord } from '@refinedev/core';
import {
  Alert,
  App,
  Button,
  Card,
  Drawer,
  Result,
  Space,
  Spin,
  Table,
  Tag,
  Tooltip,
  type TableProps,
} from 'antd';
import type { ColumnsType } from 'antd/es/table';
import {
  createContext,
  lazy,
  memo,
  Suspense,
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import {
  hasRecycleBin,
  listColumns,
  listFilters,
  workflowOf,
  type EntityDef,
  type ListColumn,
} from '../../engine/index.js';
import { ApprovalStatusTag, isApprovalStatusField, useSubmitApproval } from './approval.js';
import { useT } from '../i18n.js';
import type { AppRoute } from '../lib/menus.js';
import { routeTitle } from '../i18n.js';
import type { ResourceApi } from '../providers/resources.js';
import { sortParam } from '../providers/data.js';
import { useCanButton, useTree } from '../lib/api.js';
import { useLazyTreeRows } from './lazy-tree.js';
import { adminModules } from '../lib/admin-modules.js';
import { HISTORY_ACTION, type RecordAction } from './extensions.js';
import { useExport } from './export.js';
import { FilterBar } from './FilterBar.js';
import { ListTotal } from './ListTotal.js';
import { filtersOf, type FilterValues } from './filters.js';
import { cellText, titleOf, type LabelLookup } from './labels.js';
import { useLabelLookups } from './lookups.js';
import { usePageFileLinks, withFileCells } from './file-cells.js';
import { useResources } from './resources.js';
import { FIRST_PAGE_SIZE, takeWarmFirstPage } from '../providers/warm.js';
import { useApp } from '../store.js';

import './entity.css';
import { useMenus } from '../layout/MenuProvider.js';
import { isShownField } from './field-rights.js';
import { useLiveChanges, type LiveChanges } from './useLiveChanges.js';

const EntityForm = lazy(() => import('./EntityForm.js'));
const ImportDialog = lazy(() => import('./ImportDialog.js'));
const RecycleBin = lazy(() => import('./RecycleBin.js'));

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
  const remember = useCallback(
    (next: readonly React.Key[]): void => {
      sessionStorage.setItem(storageKey, JSON.stringify(next.map(String)));
      setKeys(next);
    },
    [storageKey],
  );
  return [keys, remember];
}

type FormState = { mode: 'create' } | { mode: 'update'; record: BaseRecord } | undefined;

/**
 * The labels of the page's dictionary and reference columns, by field. The cells of those columns
 * read them here: labels that arrive after the rows repaint those cells, not the whole table.
 */
const LookupsContext = createContext<ReadonlyMap<string, LabelLookup>>(new Map());

/** A dictionary (as a tag) or reference cell, with the label once its lookup has answered. */
function LookupCell({ column, value }: { column: ListColumn; value: unknown }) {
  const t = useT();
  const label = useContext(LookupsContext).get(column.field);
  const text = cellText(column, value, t, label);
  return column.dict && text ? <Tag>{text}</Tag> : text;
}

function columnsOf(
  columns: readonly ListColumn[],
  t: ReturnType<typeof useT>,
  isSortable: boolean,
): ColumnsType<BaseRecord> {
  return columns.map((column) => ({
    key: column.field,
    dataIndex: column.field,
    title: titleOf(t, column.titleKeys, column.fallbackTitle),
    width: widthOf(column),
    fixed: column.fixed,
    ellipsis: true,
    sorter: isSortable && column.isSortable,
    render: isApprovalStatusField(column.field)
      ? (value: unknown) => <ApprovalStatusTag value={value} t={t} />
      : column.dict || column.ref
        ? (value: unknown) => <LookupCell column={column} value={value} />
        : (value: unknown) => cellText(column, value, t),
  }));
}

/**
 * A function of stable identity that calls the latest one given: a prop of the memoised table
 * that does not make it render again when only the closure is new.
 */
function useLatest<A extends unknown[], R>(callback: (...args: A) => R): (...args: A) => R {
  const ref = useRef(callback);
  useLayoutEffect(() => {
    ref.current = callback;
  });
  return useCallback((...args: A) => ref.current(...args), []);
}

/** The previous array when the new one holds the same items: its users' memos keep. */
function useSameItems<T>(items: readonly T[]): readonly T[] {
  const ref = useRef(items);
  const previous = ref.current;
  const isSame = previous.length === items.length && previous.every((item, index) => item === items[index]);
  useLayoutEffect(() => {
    if (!isSame) ref.current = items;
  });
  return isSame ? previous : items;
}

const NO_RECORDS: BaseRecord[] = [];

/** Below antd's sm breakpoint (576 px), as Grid.useBreakpoint tells it after its first render. */
const NARROW = '(max-width: 575.98px)';

function useIsNarrow(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const query = window.matchMedia(NARROW);
      query.addEventListener('change', onChange);
      return () => query.removeEventListener('change', onChange);
    },
    () => window.matchMedia(NARROW).matches,
  );
}

type Pagination = Exclude<NonNullable<TableProps<BaseRecord>['pagination']>, false>;

/**
 * The list's table, rendered again only when one of its props changes: a list screen renders for
 * many reasons (a query's fetching state, the count, a dialog), and a table of twenty rows is
 * about a thousand components, with its column measuring after each render.
 */
const ListTable = memo(function ListTable(props: TableProps<BaseRecord> & { 'data-testid': string }) {
  return <Table<BaseRecord> {...props} />;
});

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
  // A field the caller's roles hide: no column (its cells would be empty), no filter (refused).
  const rights = useMenus().fieldRights[entity.name];
  const columns = useMemo(
    () => listColumns(entity).filter((column) => column.isVisible && isShownField(rights, column.field)),
    [entity, rights],
  );
  const filters = useMemo(
    () => listFilters(entity).filter((filter) => isShownField(rights, filter.field)),
    [entity, rights],
  );
  const keyName = entity.key.name;
  // Which list (its filters) the exact count was asked for: another filter shows its estimate again.
  const [exactCountOf, setExactCountOf] = useState<string | undefined>();
  const [countKey, setCountKey] = useState('');
  // The first page asked for at boot (a cold load of this list, providers/warm.ts), if it is here:
  // the first render shows the rows; the query's own first ask takes the same answer (data.ts).
  const [warmPage] = useState(() => (api.treeEndpoint ? undefined : takeWarmFirstPage(entity.name)));

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
    ...(warmPage ? { queryOptions: { initialData: warmPage } } : {}),
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
  const dataSource = tableProps.dataSource;
  const pageRecords = useMemo(() => (dataSource ? [...dataSource] : NO_RECORDS), [dataSource]);
  const records = isTree ? treeRows : pageRecords;
  const allRecords = useMemo(() => flatten(records), [records]);
  // A field the role may not see (data-field permission) is absent from the answers: no column.
  const shownColumns = useSameItems(
    useMemo(
      () =>
        allRecords.length === 0
          ? columns
          : columns.filter((column) => allRecords.some((record) => column.field in record)),
      [columns, allRecords],
    ),
  );
  const lookups = useLabelLookups(shownColumns, allRecords);
  const fileLinks = usePageFileLinks(shownColumns, allRecords);
  const baseColumns = useMemo(() => columnsOf(shownColumns, t, !isTree), [shownColumns, t, isTree]);
  const tableColumns = useMemo(
    () => withFileCells(baseColumns, shownColumns, fileLinks),
    [baseColumns, shownColumns, fileLinks],
  );

  const [selectedKeys, setSelectedKeys] = useState<React.Key[]>([]);
  const [form, setForm] = useState<FormState>(undefined);
  const [action, setAction] = useState<{ action: RecordAction; record: BaseRecord } | undefined>();
  const { mutateAsync: deleteMany } = useDeleteMany();
  const exporter = useExport(api, entity);
  const [isImporting, setImporting] = useState(false);
  const [isRecycling, setRecycling] = useState(false);

  // What others added or changed since the list was loaded (the live provider's events).
  const live = useLiveChanges(entity.name);
  const refresh = (): void => {
    live.clear();
    void tableQuery.refetch();
    if (isTree) void tree.refetch();
  };
  const selected = (): BaseRecord[] => {
    const keys = new Set(selectedKeys.map(String));
    return allRecords.filter((record) => keys.has(String(record[keyName])));
  };
  /** The one checked record, or a warning (docs/product.md §8). */
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
  // 提交审批 (x-entity.workflow): the record's status changes, so it goes with 编辑's grant.
  const submitApproval = useSubmitApproval({ entity, base: api.base, t, onDone: refresh });
  const isApproved = workflowOf(entity) !== undefined;
  const actions = [...adminModules.recordActions(entity.name), HISTORY_ACTION].filter(
    (item) => !item.button || can(item.button),
  );
  const isVirtual = records.length > VIRTUAL_FROM;
  const headerOffset = app.settings.fixedHeader
    ? NAVBAR_HEIGHT + (app.settings.tagsView ? TAGS_HEIGHT : 0)
    : 0;
  const width = tableColumns.reduce((sum, column) => sum + Number(column.width ?? DEFAULT_COLUMN_WIDTH), 64);

  // The table's props, each of stable identity while what it shows is the same (ListTable).
  const onTableChange = useLatest<Parameters<NonNullable<TableProps<BaseRecord>['onChange']>>, void>(
    (...args) => tableProps.onChange?.(...args),
  );
  const refinePagination = tableProps.pagination;
  const pageLinks = useLatest((...args: Parameters<NonNullable<Pagination['itemRender']>>) =>
    refinePagination && refinePagination.itemRender ? refinePagination.itemRender(...args) : args[2],
  );
  const isExact = listAnswer?.totalExact !== false;
  const isCounting = exactCountOf === countKey && tableQuery.isFetching;
  const countExactly = useLatest(() => setExactCountOf(countKey));
  const current = refinePagination ? refinePagination.current : undefined;
  const pageSize = refinePagination ? refinePagination.pageSize : undefined;
  const total = refinePagination ? refinePagination.total : undefined;
  // Narrow screens get the simple pager at the bottom's centre, as Refine's; read at once, not
  // after a first render with no breakpoints (a whole table rendered again).
  const isNarrow = useIsNarrow();
  const pagination = useMemo<TableProps<BaseRecord>['pagination']>(
    () =>
      isTree || !refinePagination
        ? false
        : {
            current,
            pageSize,
            total,
            simple: isNarrow,
            position: [isNarrow ? 'bottomCenter' : 'bottomRight'],
            itemRender: pageLinks,
            showSizeChanger: true,
            pageSizeOptions: PAGE_SIZES,
            showTotal: (count: number) => (
              <ListTotal
                total={count}
                isExact={isExact}
                isCounting={isCounting}
                onCountExactly={countExactly}
              />
            ),
          },
    // refinePagination is new on every render: its fields are the dependencies
    [isTree, current, pageSize, total, isNarrow, pageLinks, isExact, isCounting, countExactly],
  );
  const rowKey = useCallback((record: BaseRecord) => String(record[keyName]), [keyName]);
  const rowSelection = useMemo<TableProps<BaseRecord>['rowSelection']>(
    () => ({
      selectedRowKeys: selectedKeys,
      onChange: setSelectedKeys,
      checkStrictly: true,
      // each row's checkbox is named after its record (WCAG 4.1.2); antd puts the title on the input
      getCheckboxProps: (record) => ({
        title: t('admin.crud.selectRow', { label: String(record[entity.label] ?? record[keyName]) }),
      }),
    }),
    [selectedKeys, t, entity.label, keyName],
  );
  const expandable = useMemo(
    () => (isTree ? { expandedRowKeys: expandedKeys, onExpandedRowsChange: setExpandedKeys } : undefined),
    [isTree, expandedKeys, setExpandedKeys],
  );
  const openRecord = useLatest((record: BaseRecord) => {
    if (can('update')) setForm({ mode: 'update', record });
  });
  const onRow = useCallback(
    (record: BaseRecord) => ({ onDoubleClick: () => openRecord(record) }),
    [openRecord],
  );
  const scroll = useMemo(
    () => (isVirtual ? { x: width, y: 560 } : { x: 'max-content' as const }),
    [isVirtual, width],
  );
  const sticky = useMemo(
    () => (isVirtual ? undefined : { offsetHeader: headerOffset }),
    [isVirtual, headerOffset],
  );
  // Refine's loading is "not fetched yet": also over the boot's first page (initialData) until the
  // query's own ask answers. Rows of this query's own, not a previous page's, are no loading table.
  const isShowingOwnRows = tableQuery.isSuccess && !tableQuery.isPlaceholderData;
  const isLoading = Boolean(isTree ? tree.isLoading : tableProps.loading && !isShowingOwnRows);

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
        {isApproved && can('update') ? (
          <Button
            onClick={() => {
              const record = oneSelected();
              if (record) submitApproval(record);
            }}
            data-testid="entity-submit-approval"
          >
            {t('admin.approval.submit')}
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
        {hasRecycleBin(entity) && can('delete') ? (
          // 回收站 (x-entity.softDelete): deleting is what fills it, so its grant opens it.
          <Button onClick={() => setRecycling(true)} data-testid="entity-recycle-bin">
            {t('admin.recycle.title')}
          </Button>
        ) : null}
        <Tooltip title={t('admin.crud.refresh')}>
          <Button onClick={refresh} data-testid="entity-refresh">
            {t('admin.crud.refresh')}
          </Button>
        </Tooltip>
        {selectedKeys.length > 0 ? (
          <span className="entity-checked">{t('admin.crud.checked', { count: selectedKeys.length })}</span>
        ) : null}
      </Space>
      <LiveNotice live={live} onRefresh={refresh} />
      <div ref={tableBox}>
        <LookupsContext.Provider value={lookups}>
          <ListTable
            dataSource={records}
            loading={isLoading}
            onChange={onTableChange}
            pagination={pagination}
            rowKey={rowKey}
            columns={tableColumns}
            rowSelection={rowSelection}
            expandable={expandable}
            onRow={onRow}
            virtual={isVirtual}
            scroll={scroll}
            // A wide table's scrollbar stays at the window's bottom, so its last columns are in reach
            // without scrolling past twenty rows first; the head stays under the fixed header.
            sticky={sticky}
            size="middle"
            data-testid="entity-table"
          />
        </LookupsContext.Provider>
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
      {isRecycling ? (
        <Drawer
          open
          width={820}
          title={t('admin.recycle.title')}
          onClose={() => setRecycling(false)}
          destroyOnHidden
        >
          <Suspense fallback={<Spin />}>
            <RecycleBin entity={entity} onChanged={refresh} />
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
            onImported={refresh}
          />
        </Suspense>
      ) : null}
    </Card>
  );
}

/** 「N 条新记录，刷新」: what others added or changed while the list was open, and the way to see it. */
function LiveNotice({ live, onRefresh }: { live: LiveChanges; onRefresh: () => void }) {
  const t = useT();
  if (live.added === 0 && live.changed === 0 && !live.isStale) return null;
  const parts = [
    ...(live.added > 0 ? [t('admin.live.added', { count: live.added })] : []),
    ...(live.changed > 0 ? [t('admin.live.changed', { count: live.changed })] : []),
    ...(live.added === 0 && live.changed === 0 ? [t('admin.live.reload')] : []),
  ];
  return (
    <Alert
      className="entity-live-notice"
      type="info"
      showIcon
      role="status"
      message={parts.join(t('admin.live.separator'))}
      action={
        <Button size="small" type="link" onClick={onRefresh} data-testid="live-refresh">
          {t('admin.live.refresh')}
        </Button>
      }
      data-testid="live-notice"
    />
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
