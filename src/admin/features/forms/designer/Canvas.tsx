import { CopyOutlined, DeleteOutlined, HolderOutlined } from '@ant-design/icons';
import { useDraggable, useDroppable } from '@dnd-kit/core';
import { SortableContext, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { Button, Col, Row } from 'antd';
import {
  memo,
  useCallback,
  useMemo,
  useRef,
  type KeyboardEvent,
  type MouseEvent,
  type ReactNode,
} from 'react';
import type { Titles } from '../../../../engine/types.js';
import type { Translate } from '../../../i18n.js';
import { adminModules } from '../../../lib/admin-modules.js';
import type { PaletteWidget } from '../../../lib/modules.js';
import {
  FIELD_KINDS,
  kindOf,
  LAYOUT_KINDS,
  ROOT_ID,
  type DesignNode,
  type FieldKind,
  type FieldNode,
  type LayoutKind,
} from './model.js';
import { CanvasWidget } from './CanvasWidget.js';
import { titleIn } from './render.js';
import { subtableColumns } from './subtable.js';

/** What the canvas asks of the designer; one stable object, so unchanged items do not repaint. */
export interface CanvasActions {
  select: (id: string) => void;
  copy: (id: string) => void;
  remove: (id: string) => void;
  add: (item: PaletteKind) => void;
}

export interface CanvasEnv {
  t: Translate;
  language: keyof Titles;
  actions: CanvasActions;
  /** A field's title in the designer's language, by its name (its name when none). */
  titleOf: (name: string) => string;
}

/** The data dnd-kit carries: where a dragged or hovered thing is. */
/** A palette item: a field kind, or a layout kind (a static text is not a text field). */
export type PaletteKind =
  | { isLayout: false; kind: Exclude<FieldKind, 'other'> }
  | { isLayout: true; kind: LayoutKind }
  /** A module's widget (lib/modules.ts `widgets` with a `palette`). */
  | { isLayout: false; kind: 'widget'; widget: PaletteWidget };

export type DragData =
  | ({ source: 'palette' } & PaletteKind)
  | { source: 'node'; containerId: string }
  | { source: 'container'; containerId: string };

export const PALETTE_PREFIX = 'palette:';
export const CONTAINER_PREFIX = 'container:';

/** The label key of a palette item. */
export function paletteLabelKey(item: PaletteKind): string {
  if (item.kind === 'widget') return item.widget.labelKey;
  return item.isLayout ? `formDesigner.layoutKind.${item.kind}` : `formDesigner.kind.${item.kind}`;
}

const PaletteItem = memo(function PaletteItem({ item, env }: { item: PaletteKind; env: CanvasEnv }) {
  const name =
    item.kind === 'widget' ? `widget-${item.widget.name}` : `${item.isLayout ? 'layout-' : ''}${item.kind}`;
  const { attributes, listeners, setNodeRef, isDragging } = useDraggable({
    id: `${PALETTE_PREFIX}${name}`,
    data: { source: 'palette', ...item } satisfies DragData,
  });
  return (
    <button
      type="button"
      ref={setNodeRef}
      className={`formdesign-palette-item${isDragging ? ' is-dragging' : ''}`}
      data-testid={`palette-${name}`}
      {...listeners}
      {...attributes}
      // a click (or Enter) adds the item after the selection: the palette without a mouse
      onClick={() => env.actions.add(item)}
    >
      {env.t(paletteLabelKey(item))}
    </button>
  );
});

/** The palette: field kinds, then layout items; drag one onto the canvas or click it. */
export const Palette = memo(function Palette({ env }: { env: CanvasEnv }) {
  // the modules' widgets that offer a palette item (registered before the first render)
  const widgets = adminModules.paletteWidgets();
  return (
    <nav className="formdesign-palette" aria-label={env.t('formDesigner.palette')}>
      <h3>{env.t('formDesigner.fields')}</h3>
      <div className="formdesign-palette-grid">
        {FIELD_KINDS.map((kind) => (
          <PaletteItem key={kind} item={{ isLayout: false, kind }} env={env} />
        ))}
      </div>
      <h3>{env.t('formDesigner.layout')}</h3>
      <div className="formdesign-palette-grid">
        {LAYOUT_KINDS.map((kind) => (
          <PaletteItem key={kind} item={{ isLayout: true, kind }} env={env} />
        ))}
      </div>
      {widgets.length > 0 ? (
        <>
          <h3>{env.t('formDesigner.moduleWidgets')}</h3>
          <div className="formdesign-palette-grid" data-testid="palette-module-widgets">
            {widgets.map((widget) => (
              <PaletteItem key={widget.name} item={{ isLayout: false, kind: 'widget', widget }} env={env} />
            ))}
          </div>
        </>
      ) : null}
    </nav>
  );
});

/**
 * The ids of a container's items, the same array while they are the same ids: SortableContext
 * hands a new context to every item of the list whenever its array changes, so a change inside
 * one item (a title typed) would repaint all of them.
 */
function useStableIds(items: readonly DesignNode[]): string[] {
  const last = useRef<string[]>([]);
  const ids = items.map((node) => node.id);
  if (ids.length !== last.current.length || ids.some((id, index) => id !== last.current[index]))
    last.current = ids;
  return last.current;
}

/** A container's drop zone (the canvas, a grid column, a group) with its sortable items. */
function Container({
  id,
  items,
  selectedId,
  env,
  className,
}: {
  id: string;
  items: readonly DesignNode[];
  selectedId: string | undefined;
  env: CanvasEnv;
  className: string;
}) {
  const data = useMemo(() => ({ source: 'container', containerId: id }) satisfies DragData, [id]);
  const { setNodeRef, isOver } = useDroppable({ id: `${CONTAINER_PREFIX}${id}`, data });
  const ids = useStableIds(items);
  return (
    <SortableContext items={ids} strategy={verticalListSortingStrategy}>
      <div
        ref={setNodeRef}
        className={`${className}${isOver ? ' is-over' : ''}${items.length === 0 ? ' is-empty' : ''}`}
        data-testid={`container-${id}`}
      >
        {items.map((node) => (
          <CanvasNode
            key={node.id}
            node={node}
            containerId={id}
            isSelected={node.id === selectedId}
            // only layout items need the selection of their children
            selectedId={node.kind === 'field' ? undefined : selectedId}
            env={env}
          />
        ))}
        {items.length === 0 ? (
          <div className="formdesign-drop-hint">{env.t('formDesigner.dropHere')}</div>
        ) : null}
      </div>
    </SortableContext>
  );
}

function fieldLabel(node: FieldNode, language: keyof Titles): string {
  return titleIn({ title: node.schema.title ?? node.name, titles: node.schema['x-ui']?.titles }, language);
}

/**
 * A sub-table on the canvas: a small table whose header holds its columns' titles (in the
 * designer's language, a required column starred) and one empty row, as the form will show it.
 */
function SubtableHead({ node, env }: { node: FieldNode; env: CanvasEnv }) {
  const columns = subtableColumns(node.schema);
  return (
    <table className="formdesign-subtable-head" data-testid={`subtable-head-${node.name}`}>
      <thead>
        <tr>
          <th scope="col" className="is-seq">
            #
          </th>
          {columns.map((column) => (
            <th scope="col" key={column.name} data-column={column.name}>
              {column.isRequired ? <span className="formdesign-required">*</span> : null}
              {titleIn(
                { title: column.schema.title ?? column.name, titles: column.schema['x-ui']?.titles },
                env.language,
              )}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        <tr>
          <td className="is-seq">1</td>
          {columns.map((column) => (
            <td key={column.name}>{env.t(`formDesigner.subtable.types.${column.type}`)}</td>
          ))}
        </tr>
      </tbody>
    </table>
  );
}

function NodeBody({ node, env }: { node: DesignNode; env: CanvasEnv }) {
  switch (node.kind) {
    case 'field': {
      const kind = kindOf(node.schema);
      return (
        <div className="formdesign-field">
          <div className="formdesign-field-label">
            {node.isRequired ? <span className="formdesign-required">*</span> : null}
            {fieldLabel(node, env.language)}
            <span className="formdesign-tag">{node.name}</span>
            {node.schema['x-dict'] ? (
              <span className="formdesign-tag is-dict" title={env.t('formDesigner.prop.dictionary')}>
                {node.schema['x-dict']}
              </span>
            ) : null}
            {node.schema['x-ref'] ? (
              <span className="formdesign-tag is-ref">→ {node.schema['x-ref']}</span>
            ) : null}
            {node.visibleWhen ? (
              <span className="formdesign-tag is-condition">
                {env.t('formDesigner.when', {
                  field: env.titleOf(node.visibleWhen.field),
                  value: String(node.visibleWhen.equals),
                })}
              </span>
            ) : null}
          </div>
          {kind === 'subtable' ? (
            <SubtableHead node={node} env={env} />
          ) : (
            <CanvasWidget schema={node.schema} label={fieldLabel(node, env.language)} t={env.t} />
          )}
        </div>
      );
    }
    case 'divider':
      return (
        <div className="formdesign-divider">
          {titleIn(node, env.language) || env.t('formDesigner.layoutKind.divider')}
        </div>
      );
    case 'text':
      return <div className="formdesign-text">{node.titles?.[env.language] ?? node.text}</div>;
    case 'group':
      return (
        <div className="formdesign-group-title">
          {titleIn(node, env.language) || env.t('formDesigner.layoutKind.group')}
        </div>
      );
    case 'grid':
      return <div className="formdesign-grid-title">{env.t('formDesigner.layoutKind.grid')}</div>;
  }
}

/** Layout moves are not animated: a drop shifts up to a hundred items, each measured to animate. */
const noLayoutAnimation = (): boolean => false;

/**
 * One item on the canvas. dnd-kit's hook re-runs in every item whenever the drag state changes
 * (a drag starts, hovers, ends), so this shell holds only the hook and the positioned element;
 * what the item shows is NodeContent, memoised, painted again only when its own node changes.
 */
const CanvasNode = memo(function CanvasNode({
  node,
  containerId,
  isSelected,
  selectedId,
  env,
}: {
  node: DesignNode;
  containerId: string;
  isSelected: boolean;
  selectedId: string | undefined;
  env: CanvasEnv;
}) {
  const data = useMemo(() => ({ source: 'node', containerId }) satisfies DragData, [containerId]);
  const {
    attributes,
    listeners,
    setNodeRef,
    setActivatorNodeRef,
    transform,
    transition,
    isDragging,
    isOver,
  } = useSortable({ id: node.id, data, animateLayoutChanges: noLayoutAnimation });
  const style = { transform: CSS.Translate.toString(transform), transition };
  const { select } = env.actions;
  const onSelect = useCallback(
    (event: MouseEvent | KeyboardEvent): void => {
      event.stopPropagation();
      select(node.id);
    },
    [select, node.id],
  );
  return (
    <div
      ref={setNodeRef}
      style={style}
      className={`formdesign-node formdesign-node-${node.kind}${isSelected ? ' is-selected' : ''}${isDragging ? ' is-dragging' : ''}${isOver ? ' is-over' : ''}`}
      data-testid={node.kind === 'field' ? `node-${node.name}` : `node-${node.kind}`}
      data-node-id={node.id}
      onClick={onSelect}
    >
      <NodeContent
        node={node}
        isSelected={isSelected}
        selectedId={selectedId}
        env={env}
        onSelect={onSelect}
        handle={listeners}
        handleAttributes={attributes}
        setHandleRef={setActivatorNodeRef}
      />
    </div>
  );
});

type SortableHandle = ReturnType<typeof useSortable>;

const NodeContent = memo(function NodeContent({
  node,
  isSelected,
  selectedId,
  env,
  onSelect,
  handle,
  handleAttributes,
  setHandleRef,
}: {
  node: DesignNode;
  isSelected: boolean;
  selectedId: string | undefined;
  env: CanvasEnv;
  onSelect: (event: MouseEvent | KeyboardEvent) => void;
  handle: SortableHandle['listeners'];
  handleAttributes: SortableHandle['attributes'];
  setHandleRef: SortableHandle['setActivatorNodeRef'];
}) {
  const label =
    node.kind === 'field'
      ? `${fieldLabel(node, env.language)} (${node.name})`
      : env.t(`formDesigner.layoutKind.${node.kind}`);
  let inner: ReactNode = null;
  if (node.kind === 'grid')
    inner = (
      <Row gutter={8} className="formdesign-grid">
        {node.columns.map((column) => (
          <Col key={column.id} span={column.span}>
            <Container
              id={column.id}
              items={column.items}
              selectedId={selectedId}
              env={env}
              className="formdesign-column"
            />
          </Col>
        ))}
      </Row>
    );
  else if (node.kind === 'group')
    inner = (
      <Container
        id={node.id}
        items={node.items}
        selectedId={selectedId}
        env={env}
        className="formdesign-group-body"
      />
    );
  return (
    <>
      <div className="formdesign-node-head">
        <button
          type="button"
          ref={setHandleRef}
          className="formdesign-handle"
          aria-label={env.t('formDesigner.dragItem', { item: label })}
          {...handle}
          {...handleAttributes}
          // the handle also selects: a keyboard user reaches items through it
          onClick={onSelect}
          aria-pressed={isSelected}
        >
          <HolderOutlined />
        </button>
        <div className="formdesign-node-body">
          <NodeBody node={node} env={env} />
        </div>
        {isSelected ? <NodeTools id={node.id} env={env} /> : null}
      </div>
      {inner}
    </>
  );
});

/** Copy and delete, on the selected item only (a native title: an antd tooltip each costs a popup). */
function NodeTools({ id, env }: { id: string; env: CanvasEnv }) {
  return (
    <div className="formdesign-node-tools">
      <Button
        size="small"
        icon={<CopyOutlined />}
        title={env.t('formDesigner.copy')}
        aria-label={env.t('formDesigner.copy')}
        onClick={(event) => {
          event.stopPropagation();
          env.actions.copy(id);
        }}
      />
      <Button
        size="small"
        danger
        icon={<DeleteOutlined />}
        title={env.t('formDesigner.delete')}
        aria-label={env.t('formDesigner.delete')}
        data-testid="node-delete"
        onClick={(event) => {
          event.stopPropagation();
          env.actions.remove(id);
        }}
      />
    </div>
  );
}

/** The canvas: the form's items, sortable, nested in grid columns and groups. */
export function Canvas({
  items,
  selectedId,
  env,
}: {
  items: readonly DesignNode[];
  selectedId: string | undefined;
  env: CanvasEnv;
}) {
  return (
    <Container
      id={ROOT_ID}
      items={items}
      selectedId={selectedId}
      env={env}
      className="formdesign-canvas-root"
    />
  );
}
