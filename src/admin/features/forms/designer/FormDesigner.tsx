import {
  CheckCircleOutlined,
  CloseCircleOutlined,
  DownloadOutlined,
  EyeOutlined,
  FileAddOutlined,
  LoadingOutlined,
  RedoOutlined,
  SaveOutlined,
  UndoOutlined,
} from '@ant-design/icons';
import {
  closestCenter,
  DndContext,
  pointerWithin,
  type CollisionDetection,
  type UniqueIdentifier,
  DragOverlay,
  PointerSensor,
  useSensor,
  useSensors,
  type DragEndEvent,
  type DragStartEvent,
} from '@dnd-kit/core';
import { useCustom, useCustomMutation } from '@refinedev/core';
import { App, Button, Card, Modal, Segmented, Space, Spin, Tabs, Tag, Tooltip, Tree } from 'antd';
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import type { EntitySchema } from '../../../../engine/types.js';
import { routeTitle, useLanguage, useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import {
  Canvas,
  Palette,
  paletteLabelKey,
  type CanvasEnv,
  type DragData,
  type PaletteKind,
} from './Canvas.js';
import {
  blankSchema,
  containerItems,
  copyOf,
  duplicateNode,
  ENGLISH_TITLES,
  newWidgetField,
  exportFileName,
  exportText,
  locate,
  modelToSchema,
  fieldNodes,
  moveNode,
  newField,
  newLayout,
  nodeOrder,
  removeNode,
  ROOT_ID,
  schemaToModel,
  insertNode,
  type DesignModel,
  type DesignNode,
  type FieldNode,
} from './model.js';
import { PropertyPanel } from './PropertyPanel.js';
import { titleIn } from './render.js';
import { useDesigner } from './useDesigner.js';
import './formdesign.css';
import { errorText } from '../../../lib/screen-parts.js';

const JsonView = lazy(() => import('./JsonView.js'));
const DesignedForm = lazy(() => import('./DesignedForm.js'));

/** Where the draft of an unsaved form (or of a saved one, by id) is kept between visits. */
export const DRAFT_KEY = 'formDesigner.draft';
const AUTOSAVE_MS = 3000;
/**
 * The pointer sensor's options, one object for good: new options make new sensors, new sensors new
 * drag listeners in every canvas item, and every item would paint again on each change.
 */
const POINTER_OPTIONS = { activationConstraint: { distance: 4 } };

/** A stored designed form (generator/form). */
interface StoredForm {
  id: number;
  formCode: string;
  formName: string;
  formDescription?: string | null;
  formContent: EntitySchema | string;
  status?: string;
  version: number;
}

function draftKey(id: string | null): string {
  return id ? `${DRAFT_KEY}.${id}` : DRAFT_KEY;
}

function readDraft(id: string | null): EntitySchema | undefined {
  try {
    const text = window.localStorage.getItem(draftKey(id));
    return text ? (JSON.parse(text) as EntitySchema) : undefined;
  } catch {
    return undefined;
  }
}

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) ||
    target.closest('.cm-editor, .ant-modal, .ant-select-dropdown') !== null
  );
}

function treeOf(
  items: readonly DesignNode[],
  label: (node: DesignNode) => string,
): { key: string; title: string; children?: ReturnType<typeof treeOf> }[] {
  return items.map((node) => {
    const children =
      node.kind === 'grid'
        ? node.columns.flatMap((column) => treeOf(column.items, label))
        : node.kind === 'group'
          ? treeOf(node.items, label)
          : undefined;
    return { key: node.id, title: label(node), ...(children ? { children } : {}) };
  });
}

/**
 * The form designer (/formdesign): a palette, a canvas (drag and drop with @dnd-kit), an outline,
 * a property panel, a JSON view and a preview; undo/redo, autosave of the draft (this browser,
 * and the server once the form is saved), export as a schemas/ file. What it designs is an entity
 * schema in the vocabulary of schemas/ (see model.ts).
 */
export default function FormDesigner({ route }: { route: AppRoute }) {
  const t = useT();
  const language = useLanguage();
  const { message } = App.useApp();
  const [params, setParams] = useSearchParams();
  const formId = params.get('id');
  const designer = useDesigner(() => schemaToModel(readDraft(formId) ?? blankSchema()));
  const { model, selectedId } = designer;
  const latest = useRef(designer);
  latest.current = designer;
  const clipboard = useRef<DesignNode | undefined>(undefined);
  const [view, setView] = useState<'design' | 'json'>('design');
  const [isPreviewOpen, setPreviewOpen] = useState(false);
  const [previewWidth, setPreviewWidth] = useState<'desktop' | 'phone'>('desktop');
  /** The JSON view's problem count; undefined while its validator is still on its way. */
  const [jsonProblems, setJsonProblems] = useState<number | undefined>(undefined);
  const [stored, setStored] = useState<StoredForm | undefined>(undefined);
  const [dragging, setDragging] = useState<string | undefined>(undefined);

  // A saved form opens from the server (its draft in this browser, if newer, wins below).
  const { query: loadQuery } = useCustom<{ records: StoredForm[] }>({
    url: '/api/generator/form/query',
    method: 'get',
    config: { query: { id: formId ?? '', currentPage: 1, pageSize: 1 } },
    queryOptions: { enabled: formId !== null },
  });
  const loadedRecord = loadQuery.data?.data.records?.[0];
  /**
   * The model as the server holds it (just loaded, or just saved): nothing to autosave while the
   * designer shows it. Opening a stored form, or the reload that follows its first save, is no
   * change and makes no new version.
   */
  const serverModel = useRef<DesignModel | undefined>(undefined);
  /** The stored form the designer holds, for the load below (which runs on the answer only). */
  const storedNow = useRef(stored);
  storedNow.current = stored;
  useEffect(() => {
    if (!loadedRecord) return;
    // The version this designer already holds (the load that follows its first save, a refetch):
    // nothing new, and changes made while it was on its way are kept, not replaced by it.
    const held = storedNow.current;
    if (held && held.id === loadedRecord.id && held.version >= loadedRecord.version) return;
    setStored(loadedRecord);
    const content =
      typeof loadedRecord.formContent === 'string'
        ? (JSON.parse(loadedRecord.formContent) as EntitySchema)
        : loadedRecord.formContent;
    const draft = readDraft(String(loadedRecord.id));
    const loaded = schemaToModel(draft ?? content);
    // a draft of this browser wins; one the server already holds is no change
    const isSaved =
      !draft ||
      JSON.stringify(modelToSchema(loaded)) === JSON.stringify(modelToSchema(schemaToModel(content)));
    if (isSaved) serverModel.current = loaded;
    latest.current.reset(loaded);
  }, [loadedRecord]);

  // The schema only for what shows it (the JSON view, the preview): not once per change.
  const schema = useMemo(
    () => (view === 'json' || isPreviewOpen ? modelToSchema(model) : undefined),
    [model, view, isPreviewOpen],
  );
  const text = useMemo(() => (view === 'json' && schema ? exportText(schema) : ''), [schema, view]);

  // Autosave: the draft in this browser at once, on the server a moment after the last change.
  const { mutateAsync: send } = useCustomMutation<StoredForm>();
  const save = useCallback(
    async (isQuiet: boolean): Promise<void> => {
      const sent = latest.current.model;
      const content = modelToSchema(sent);
      const code = content['x-entity'].api.split('/').pop() ?? 'form';
      // what generator/form/add and update take (the code is given once, when the form is added)
      const body = {
        formName: content.title || code,
        formDescription: content.description ?? '',
        formContent: content,
      };
      const { data } = await send({
        url: stored ? '/api/generator/form/update' : '/api/generator/form/add',
        method: stored ? 'put' : 'post',
        values: stored ? { ...body, id: stored.id, version: stored.version } : { ...body, formCode: code },
        successNotification: false,
        errorNotification: false,
        meta: { silent: isQuiet },
      });
      setStored(data);
      serverModel.current = sent;
      // The server holds what this browser's draft held: a draft kept would win over a later
      // change made elsewhere the next time the form opens here.
      if (latest.current.model === sent) window.localStorage.removeItem(draftKey(String(data.id)));
      if (!stored) {
        window.localStorage.removeItem(draftKey(null));
        setParams({ id: String(data.id) }, { replace: true });
      }
      if (!isQuiet) void message.success(t('formDesigner.saved'));
    },
    [send, stored, setParams, message, t],
  );
  // The autosave timer calls the save of the latest render: after a 保存 it sends the version the
  // server answered, not the one the timer's render knew (which the server refuses with a 409).
  const latestSave = useRef(save);
  latestSave.current = save;
  const autosave = useCallback((): void => {
    // saved in the meantime (保存 clicked): nothing left to send
    if (latest.current.model === serverModel.current) return;
    latestSave
      .current(true)
      .catch(
        (error: unknown) =>
          void message.error(t('formDesigner.autosaveFailed', { reason: errorText(error) })),
      );
  }, [message, t]);
  const isFirstRender = useRef(true);
  useEffect(() => {
    if (isFirstRender.current) {
      isFirstRender.current = false;
      return;
    }
    if (model === serverModel.current) return;
    const local = setTimeout(() => {
      // saved in the meantime (a click on 保存 right after the change): nothing left to keep
      if (model === serverModel.current) return;
      window.localStorage.setItem(
        draftKey(stored ? String(stored.id) : null),
        JSON.stringify(modelToSchema(model)),
      );
    }, 300);
    const remote = stored ? setTimeout(autosave, AUTOSAVE_MS) : undefined;
    return () => {
      clearTimeout(local);
      if (remote) clearTimeout(remote);
    };
    // A change, or the form's first save (stored at last): a change made while that save was on
    // its way is kept as the stored form's draft and saved in a moment, as a later one is. `save`
    // changes with every stored answer and is not what triggers an autosave.
  }, [model, stored?.id]);

  /** A field from the palette: titled in English (the schema's title) and in the user's language. */
  const paletteField = useCallback(
    (current: DesignModel, item: Exclude<PaletteKind, { isLayout: true }>): FieldNode => {
      const key = paletteLabelKey(item);
      const field =
        item.kind === 'widget'
          ? newWidgetField(current, item.widget, item.widget.title)
          : newField(current, item.kind, ENGLISH_TITLES[item.kind]);
      if (language === 'en') return field;
      const ui = field.schema['x-ui'] ?? {};
      return { ...field, schema: { ...field.schema, 'x-ui': { ...ui, titles: { [language]: t(key) } } } };
    },
    [t, language],
  );
  // The canvas's actions: one stable object, reading the designer of the moment.
  const actions = useMemo(
    () => ({
      select: (id: string) => latest.current.select(id),
      copy: (id: string) => {
        const { model: next, copyId } = duplicateNode(latest.current.model, id);
        latest.current.change(next, copyId ? { select: copyId } : {});
      },
      remove: (id: string) => latest.current.change(removeNode(latest.current.model, id), { select: null }),
      add: (item: PaletteKind) => {
        const current = latest.current;
        const node = item.isLayout ? newLayout(item.kind) : paletteField(current.model, item);
        const at = current.selectedId ? locate(current.model.items, current.selectedId) : undefined;
        const next = at
          ? insertNode(current.model, at.containerId, at.index + 1, node)
          : insertNode(current.model, ROOT_ID, Number.MAX_SAFE_INTEGER, node);
        current.change(next, { select: node.id });
      },
    }),
    [paletteField],
  );
  // The fields' titles in the designer's language, by name (a 显示条件 tag names its field by
  // title); the same object while no name or title changes, so the canvas does not repaint.
  const titlesSignature = JSON.stringify(
    fieldNodes(model.items).map((node) => [
      node.name,
      titleIn({ title: node.schema.title ?? node.name, titles: node.schema['x-ui']?.titles }, language),
    ]),
  );
  const env: CanvasEnv = useMemo(() => {
    const titles = new Map(JSON.parse(titlesSignature) as [string, string][]);
    return { t, language, actions, titleOf: (name: string) => titles.get(name) ?? name };
  }, [t, language, actions, titlesSignature]);

  // Keyboard: Delete, Ctrl+C / Ctrl+V, arrows (selection), Alt+arrows (move), Ctrl+Z / Ctrl+Shift+Z.
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if (isTyping(event.target) || document.querySelector('.ant-modal-wrap:not([style*="display: none"])'))
        return;
      const current = latest.current;
      const isCommand = event.ctrlKey || event.metaKey;
      const key = event.key.toLowerCase();
      if (isCommand && key === 'z') {
        event.preventDefault();
        if (event.shiftKey) current.redo();
        else current.undo();
        return;
      }
      if (isCommand && key === 'y') {
        event.preventDefault();
        current.redo();
        return;
      }
      if (view !== 'design') return;
      const selected = current.selectedId ? locate(current.model.items, current.selectedId) : undefined;
      if (isCommand && key === 'c' && selected) {
        clipboard.current = selected.node;
        return;
      }
      if (isCommand && key === 'v' && clipboard.current) {
        event.preventDefault();
        const copy = copyOf(current.model, clipboard.current);
        const next = selected
          ? insertNode(current.model, selected.containerId, selected.index + 1, copy)
          : insertNode(current.model, ROOT_ID, Number.MAX_SAFE_INTEGER, copy);
        current.change(next, { select: copy.id });
        return;
      }
      if ((event.key === 'Delete' || event.key === 'Backspace') && selected) {
        event.preventDefault();
        current.change(removeNode(current.model, selected.node.id), { select: null });
        return;
      }
      if (event.key === 'Escape') {
        current.select(undefined);
        return;
      }
      if (event.key !== 'ArrowUp' && event.key !== 'ArrowDown') return;
      event.preventDefault();
      const step = event.key === 'ArrowUp' ? -1 : 1;
      if (event.altKey && selected) {
        const siblings = containerItems(current.model.items, selected.containerId) ?? [];
        const index = selected.index + step;
        if (index >= 0 && index < siblings.length) {
          current.change(moveNode(current.model, selected.node.id, selected.containerId, index));
        }
        return;
      }
      const order = nodeOrder(current.model.items);
      const index = order.findIndex((node) => node.id === current.selectedId);
      const next = order[index === -1 ? (step > 0 ? 0 : order.length - 1) : index + step];
      if (next) {
        current.select(next.id);
        document.querySelector(`[data-node-id="${next.id}"]`)?.scrollIntoView({ block: 'nearest' });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [view]);

  const sensors = useSensors(useSensor(PointerSensor, POINTER_OPTIONS));
  /** Where the pointer was at the last collision check: a drop lands before or after the item under it. */
  const pointer = useRef<{ x: number; y: number } | undefined>(undefined);
  const collisionDetection = useCallback<CollisionDetection>((args) => {
    pointer.current = args.pointerCoordinates ?? undefined;
    // The innermost thing under the pointer: a field in a column, else the column, else the canvas.
    const within = pointerWithin(args);
    if (within.length === 0) return closestCenter(args);
    const area = (id: UniqueIdentifier): number => {
      const rect = args.droppableRects.get(id);
      return rect ? rect.width * rect.height : Number.MAX_SAFE_INTEGER;
    };
    return [...within].sort((a, b) => area(a.id) - area(b.id)).slice(0, 1);
  }, []);
  const onDragStart = (event: DragStartEvent): void => {
    const data = event.active.data.current as DragData | undefined;
    setDragging(data?.source === 'palette' ? t(paletteLabelKey(data)) : String(event.active.id));
  };
  const onDragEnd = ({ active, over }: DragEndEvent): void => {
    setDragging(undefined);
    if (!over) return;
    const current = latest.current;
    const from = active.data.current as DragData | undefined;
    const to = over.data.current as DragData | undefined;
    if (!from || !to || to.source === 'palette') return;
    const containerId = to.containerId;
    const siblings = containerItems(current.model.items, containerId) ?? [];
    let overIndex = siblings.length;
    if (to.source === 'node') {
      overIndex = siblings.findIndex((node) => node.id === over.id);
      const isBelow = (pointer.current?.y ?? 0) > over.rect.top + over.rect.height / 2;
      if (isBelow) overIndex += 1;
    }
    if (from.source === 'palette') {
      const node = from.isLayout ? newLayout(from.kind) : paletteField(current.model, from);
      current.change(insertNode(current.model, containerId, overIndex, node), { select: node.id });
      return;
    }
    const id = String(active.id);
    if (id === over.id) return;
    const source = locate(current.model.items, id);
    if (!source) return;
    // moveNode counts the position without the moved item
    const index = source.containerId === containerId && source.index < overIndex ? overIndex - 1 : overIndex;
    current.change(moveNode(current.model, id, containerId, index), { select: id });
  };

  const label = useCallback(
    (node: DesignNode): string => {
      if (node.kind === 'field')
        return `${titleIn({ title: node.schema.title ?? node.name, titles: node.schema['x-ui']?.titles }, language)} · ${node.name}`;
      if (node.kind === 'grid') return t('formDesigner.layoutKind.grid');
      if (node.kind === 'text') return node.text;
      return titleIn(node, language) || t(`formDesigner.layoutKind.${node.kind}`);
    },
    [t, language],
  );
  const [leftTab, setLeftTab] = useState('palette');
  const outline = useMemo(
    () => (leftTab === 'outline' ? treeOf(model.items, label) : []),
    [leftTab, model.items, label],
  );
  const onPropertyEdit = useCallback(
    (key: string, change: (current: DesignModel) => DesignModel) =>
      latest.current.change(change(latest.current.model), { key }),
    [],
  );
  const getModel = useCallback(() => latest.current.model, []);
  const onJsonSchema = useCallback((next: EntitySchema) => {
    const current = latest.current;
    current.change(schemaToModel(next), { key: 'json', select: null });
  }, []);

  const draggedNode = dragging ? locate(model.items, dragging)?.node : undefined;
  const draggingLabel = draggedNode ? label(draggedNode) : dragging;
  const selectedNode = selectedId ? locate(model.items, selectedId)?.node : undefined;

  return (
    <Card
      className="admin-page formdesign"
      title={<span data-testid="page-title">{routeTitle(route)}</span>}
      extra={
        <Space wrap>
          {stored ? (
            <Tag>{t('formDesigner.version', { version: stored.version })}</Tag>
          ) : (
            <Tag>{t('formDesigner.draft')}</Tag>
          )}
          <Tooltip title="Ctrl+Z">
            <Button
              icon={<UndoOutlined />}
              disabled={!designer.canUndo}
              onClick={designer.undo}
              data-testid="undo"
            >
              {t('formDesigner.undo')}
            </Button>
          </Tooltip>
          <Tooltip title="Ctrl+Shift+Z">
            <Button
              icon={<RedoOutlined />}
              disabled={!designer.canRedo}
              onClick={designer.redo}
              data-testid="redo"
            >
              {t('formDesigner.redo')}
            </Button>
          </Tooltip>
          <Button
            icon={<FileAddOutlined />}
            onClick={() => {
              window.localStorage.removeItem(draftKey(null));
              setStored(undefined);
              setParams({}, { replace: true });
              designer.reset(schemaToModel(blankSchema()));
            }}
          >
            {t('formDesigner.new')}
          </Button>
          <Button icon={<EyeOutlined />} onClick={() => setPreviewOpen(true)} data-testid="preview">
            {t('formDesigner.preview.open')}
          </Button>
          <Button
            icon={<DownloadOutlined />}
            data-testid="export"
            onClick={() => {
              const current = modelToSchema(latest.current.model);
              download(exportFileName(current), exportText(current));
            }}
          >
            {t('formDesigner.export')}
          </Button>
          <Button
            type="primary"
            icon={<SaveOutlined />}
            onClick={() => void save(false).catch(() => undefined)}
            data-testid="save"
          >
            {t('formDesigner.save')}
          </Button>
        </Space>
      }
    >
      {formId !== null && loadQuery.isLoading ? <Spin /> : null}
      <DndContext
        sensors={sensors}
        collisionDetection={collisionDetection}
        onDragStart={onDragStart}
        onDragEnd={onDragEnd}
      >
        <div className="formdesign-body">
          <aside className="formdesign-left">
            <Tabs
              size="small"
              activeKey={leftTab}
              onChange={setLeftTab}
              items={[
                { key: 'palette', label: t('formDesigner.palette'), children: <Palette env={env} /> },
                {
                  key: 'outline',
                  label: t('formDesigner.outline'),
                  children: (
                    <Tree
                      className="formdesign-outline"
                      treeData={outline}
                      defaultExpandAll
                      blockNode
                      selectedKeys={selectedId ? [selectedId] : []}
                      onSelect={(keys) =>
                        designer.select(keys[0] === undefined ? undefined : String(keys[0]))
                      }
                    />
                  ),
                },
              ]}
            />
          </aside>
          <main className="formdesign-center" aria-label={t('formDesigner.canvas')}>
            <Segmented
              value={view}
              onChange={(value) => setView(value as 'design' | 'json')}
              options={[
                { value: 'design', label: t('formDesigner.design') },
                { value: 'json', label: t('formDesigner.json') },
              ]}
              data-testid="view-switch"
            />
            {view === 'design' ? (
              <div
                className={`formdesign-canvas size-${model.form.size ?? 'middle'}`}
                onClick={() => designer.select(undefined)}
                data-testid="canvas"
              >
                <h2 className="formdesign-form-title">
                  {titleIn({ title: String(model.root.title ?? ''), titles: model.form.titles }, language)}
                </h2>
                <Canvas items={model.items} selectedId={selectedId} env={env} />
              </div>
            ) : (
              <Suspense fallback={<Spin />}>
                <div className="formdesign-json-status" role="status">
                  {jsonProblems === undefined ? (
                    <span className="formdesign-json-checking">
                      <LoadingOutlined /> {t('formDesigner.jsonChecking')}
                    </span>
                  ) : jsonProblems > 0 ? (
                    <span className="formdesign-json-bad">
                      <CloseCircleOutlined /> {t('formDesigner.jsonProblems', { count: jsonProblems })}
                    </span>
                  ) : (
                    <span className="formdesign-json-good">
                      <CheckCircleOutlined /> {t('formDesigner.jsonValid')}
                    </span>
                  )}
                </div>
                <JsonView
                  text={text}
                  onSchema={onJsonSchema}
                  onProblems={setJsonProblems}
                  label={t('formDesigner.json')}
                />
              </Suspense>
            )}
          </main>
          <aside className="formdesign-right">
            <PropertyPanel
              model={model}
              selectedId={selectedId}
              edit={onPropertyEdit}
              getModel={getModel}
              t={t}
            />
            {selectedNode ? (
              <Button type="link" onClick={() => designer.select(undefined)}>
                {t('formDesigner.formProperties')}
              </Button>
            ) : null}
          </aside>
        </div>
        <DragOverlay>
          {draggingLabel ? <div className="formdesign-overlay">{draggingLabel}</div> : null}
        </DragOverlay>
      </DndContext>
      <Modal
        open={isPreviewOpen}
        title={t('formDesigner.preview.title')}
        footer={null}
        width={previewWidth === 'phone' ? 420 : 900}
        onCancel={() => setPreviewOpen(false)}
        destroyOnHidden
      >
        <Segmented
          value={previewWidth}
          onChange={(value) => setPreviewWidth(value as 'desktop' | 'phone')}
          options={[
            { value: 'desktop', label: t('formDesigner.preview.desktop') },
            { value: 'phone', label: t('formDesigner.preview.phone') },
          ]}
          data-testid="preview-width"
        />
        <div className={`formdesign-preview is-${previewWidth}`}>
          <Suspense fallback={<Spin />}>
            {schema ? <DesignedForm schema={schema} isNarrow={previewWidth === 'phone'} /> : null}
          </Suspense>
        </div>
      </Modal>
    </Card>
  );
}
