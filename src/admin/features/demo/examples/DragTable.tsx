import { HolderOutlined } from '@ant-design/icons';
import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
  type Announcements,
  type DndContextProps,
  type DragEndEvent,
  type SensorDescriptor,
  type SensorOptions,
  type ScreenReaderInstructions,
} from '@dnd-kit/core';
import {
  arrayMove,
  horizontalListSortingStrategy,
  SortableContext,
  sortableKeyboardCoordinates,
  useSortable,
  verticalListSortingStrategy,
} from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { Descriptions, Table, type TableColumnsType } from 'antd';
import {
  createContext,
  useContext,
  useEffect,
  useMemo,
  useState,
  type HTMLAttributes,
  type ReactNode,
} from 'react';
import { useT, type Translate } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import { articleFieldTitle, articleText, useArticles, type Article, type ArticleField } from './article.js';
import { DemoPage } from './parts.js';

const FIELDS: ArticleField[] = ['id', 'title', 'author', 'importance', 'type', 'status', 'pageviews'];

/** The drag handle of a row, given to its first cell by the row. */
interface Handle {
  attributes: HTMLAttributes<HTMLElement>;
  listeners: Record<string, unknown> | undefined;
  setActivator: (element: HTMLElement | null) => void;
}
const RowHandle = createContext<Handle | undefined>(undefined);

function DragHandle({ label }: { label: string }) {
  const handle = useContext(RowHandle);
  return (
    <button
      type="button"
      className="example-drag-handle"
      ref={handle?.setActivator}
      {...handle?.attributes}
      {...(handle?.listeners as HTMLAttributes<HTMLElement> | undefined)}
      aria-label={label}
    >
      <HolderOutlined />
    </button>
  );
}

type RowProps = HTMLAttributes<HTMLTableRowElement> & { 'data-row-key': string };

function SortableRow(props: RowProps) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } =
    useSortable({ id: `row:${props['data-row-key']}` });
  const handle = useMemo(
    () => ({ attributes, listeners, setActivator: setActivatorNodeRef }),
    [attributes, listeners, setActivatorNodeRef],
  );
  const style = {
    ...props.style,
    transform: CSS.Translate.toString(transform),
    transition,
    ...(isDragging ? { position: 'relative' as const, zIndex: 9 } : {}),
  };
  return (
    <RowHandle.Provider value={handle}>
      <tr {...props} ref={setNodeRef} style={style} />
    </RowHandle.Provider>
  );
}

type HeaderProps = HTMLAttributes<HTMLTableCellElement> & {
  id?: string;
  label?: string;
  children?: ReactNode;
};

function SortableHeader({ id, label, children, ...props }: HeaderProps) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition } = useSortable({
    id: id ?? 'none',
    disabled: !id,
  });
  if (!id) return <th {...props}>{children}</th>;
  return (
    <th
      {...props}
      ref={setNodeRef}
      style={{ ...props.style, transform: CSS.Translate.toString(transform), transition }}
    >
      <button
        type="button"
        className="example-drag-handle"
        ref={setActivatorNodeRef}
        {...attributes}
        {...(listeners as HTMLAttributes<HTMLElement> | undefined)}
        aria-label={label}
      >
        <HolderOutlined />
      </button>
      {children}
    </th>
  );
}

/** What the table's header and body sections sort (their components must keep their identity). */
interface DragStateValue {
  sensors: SensorDescriptor<SensorOptions>[];
  accessibility: NonNullable<DndContextProps['accessibility']>;
  columnIds: string[];
  rowIds: string[];
  onColumnDragEnd: (event: DragEndEvent) => void;
  onRowDragEnd: (event: DragEndEvent) => void;
}
const DragState = createContext<DragStateValue | undefined>(undefined);

function HeaderSection(props: HTMLAttributes<HTMLTableSectionElement>) {
  const state = useContext(DragState);
  if (!state) return <thead {...props} />;
  return (
    <DndContext
      sensors={state.sensors}
      collisionDetection={closestCenter}
      onDragEnd={state.onColumnDragEnd}
      accessibility={state.accessibility}
    >
      <SortableContext items={state.columnIds} strategy={horizontalListSortingStrategy}>
        <thead {...props} />
      </SortableContext>
    </DndContext>
  );
}

function BodySection(props: HTMLAttributes<HTMLTableSectionElement>) {
  const state = useContext(DragState);
  if (!state) return <tbody {...props} />;
  return (
    <DndContext
      sensors={state.sensors}
      collisionDetection={closestCenter}
      onDragEnd={state.onRowDragEnd}
      accessibility={state.accessibility}
    >
      <SortableContext items={state.rowIds} strategy={verticalListSortingStrategy}>
        <tbody {...props} />
      </SortableContext>
    </DndContext>
  );
}

const COMPONENTS = {
  header: { wrapper: HeaderSection, cell: SortableHeader },
  body: { wrapper: BodySection, row: SortableRow },
};

function announcements(t: Translate): Announcements {
  const name = (id: string | number): string => String(id).replace(/^(row|col):/, '');
  return {
    onDragStart: ({ active }) => t('examples.drag.picked', { item: name(active.id) }),
    onDragOver: ({ active, over }) =>
      over ? t('examples.drag.over', { item: name(active.id), target: name(over.id) }) : undefined,
    onDragEnd: ({ active, over }) =>
      over ? t('examples.drag.dropped', { item: name(active.id), target: name(over.id) }) : undefined,
    onDragCancel: ({ active }) => t('examples.drag.cancelled', { item: name(active.id) }),
  };
}

/**
 * /table/drag-table: the articles' rows and the table's columns reordered by dragging (mouse or
 * keyboard: Space lifts, arrows move, Space drops), the orders shown below the table.
 */
export default function DragTable({ route }: { route: AppRoute }) {
  const t = useT();
  const { articles, isLoading } = useArticles(1, 10, { sort: 'asc' });
  const [rows, setRows] = useState<Article[]>([]);
  const [fields, setFields] = useState<ArticleField[]>(FIELDS);
  useEffect(() => setRows(articles), [articles]);
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const accessibility = useMemo(
    () => ({
      container: document.body,
      announcements: announcements(t),
      screenReaderInstructions: { draggable: t('examples.drag.instructions') } as ScreenReaderInstructions,
    }),
    [t],
  );
  const onRowDragEnd = ({ active, over }: DragEndEvent): void => {
    if (!over || active.id === over.id) return;
    setRows((current) => {
      const from = current.findIndex((row) => `row:${row.id}` === active.id);
      const to = current.findIndex((row) => `row:${row.id}` === over.id);
      return from < 0 || to < 0 ? current : arrayMove(current, from, to);
    });
  };
  const onColumnDragEnd = ({ active, over }: DragEndEvent): void => {
    if (!over || active.id === over.id) return;
    setFields((current) =>
      arrayMove(
        current,
        current.indexOf(String(active.id).slice(4) as ArticleField),
        current.indexOf(String(over.id).slice(4) as ArticleField),
      ),
    );
  };
  const columns: TableColumnsType<Article> = [
    {
      key: 'drag',
      width: 48,
      title: <span className="example-sr-only">{t('examples.drag.handle')}</span>,
      render: (_: unknown, record) => (
        <DragHandle label={t('examples.drag.moveRow', { title: record.title })} />
      ),
    },
    ...fields.map((field) => ({
      key: field,
      dataIndex: field,
      title: articleFieldTitle(t, field),
      render: (value: unknown) => articleText(t, field, value),
      onHeaderCell: () =>
        ({
          id: `col:${field}`,
          label: t('examples.drag.moveColumn', { column: articleFieldTitle(t, field) }),
        }) as HeaderProps,
    })),
  ];
  return (
    <DemoPage route={route} intro={t('examples.drag.intro')}>
      <DragState.Provider
        value={{
          sensors,
          accessibility,
          columnIds: fields.map((field) => `col:${field}`),
          rowIds: rows.map((row) => `row:${row.id}`),
          onColumnDragEnd,
          onRowDragEnd,
        }}
      >
        <Table<Article>
          rowKey="id"
          size="middle"
          loading={isLoading}
          columns={columns}
          dataSource={rows}
          components={COMPONENTS}
          pagination={false}
          data-testid="drag-table"
        />
      </DragState.Provider>
      <Descriptions column={1} size="small" className="example-toolbar" style={{ marginTop: 16 }}>
        <Descriptions.Item label={t('examples.drag.originalOrder')}>
          <span className="example-order">{articles.map((row) => row.id).join(', ')}</span>
        </Descriptions.Item>
        <Descriptions.Item label={t('examples.drag.rowOrder')}>
          <span className="example-order" data-testid="row-order">
            {rows.map((row) => row.id).join(', ')}
          </span>
        </Descriptions.Item>
        <Descriptions.Item label={t('examples.drag.columnOrder')}>
          <span data-testid="column-order">
            {fields.map((field) => articleFieldTitle(t, field)).join(', ')}
          </span>
        </Descriptions.Item>
      </Descriptions>
    </DemoPage>
  );
}
