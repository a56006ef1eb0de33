import {
  AimOutlined,
  CloudUploadOutlined,
  DownloadOutlined,
  RedoOutlined,
  SaveOutlined,
  UndoOutlined,
  UploadOutlined,
  ZoomInOutlined,
  ZoomOutOutlined,
} from '@ant-design/icons';
import { App, Button, Card, Dropdown, Result, Select, Space, Spin, Tag, Tooltip, Typography } from 'antd';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { fieldMessages } from '../../../providers/data.js';
import { routeTitle, useLanguage, useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import { useApiGet, useApiWrite, useCanButton, withQuery } from '../../../lib/api.js';
import { createModeler, openDiagram, relabel, type BpmnModeler } from './modeler.js';
import { PanelPickers } from './PanelPickers.js';
import { blankDiagram, normaliseNamespaces } from './pickers.js';
import { MODEL_API, type DeployAnswer, type ModelRecord } from './model-api.js';
import { saveFile } from '../../../entity/file-api.js';
import { svgToPng } from './download.js';
import { processDiagrams, type Moddled } from './layout.js';

import './modeler.css';

/** One finding of the linter on an element (bpmnlint's report: error, warn, info or rule-error). */
interface LintReport {
  category?: string;
}

/** The elements with an error (the engine cannot run them) and those with only warnings. */
interface IssueCounts {
  errors: number;
  warnings: number;
}

function countIssues(issues: Record<string, LintReport[]>): IssueCounts {
  const counts: IssueCounts = { errors: 0, warnings: 0 };
  for (const reports of Object.values(issues)) {
    if (reports.some((report) => report.category === 'error' || report.category === 'rule-error'))
      counts.errors += 1;
    else if (reports.some((report) => report.category === 'warn')) counts.warnings += 1;
  }
  return counts;
}

interface Services {
  canvas: {
    zoom(level?: number | 'fit-viewport', center?: 'auto'): number;
    scroll(delta: { dx: number; dy: number }): void;
  };
  commandStack: { undo(): void; redo(): void; canUndo(): boolean; canRedo(): boolean };
  overlays: {
    add(
      element: string,
      type: string,
      overlay: { position: Record<string, number>; html: HTMLElement },
    ): string;
    remove(filter: { type: string }): void;
  };
  elementRegistry: { get(id: string): unknown };
  eventBus: {
    on(event: string, callback: (event: { issues?: Record<string, LintReport[]> }) => void): void;
  };
}

/** The whole diagram in view, clear of the palette on the left. */
function fit(modeler: BpmnModeler): void {
  const canvas = service(modeler, 'canvas');
  canvas.zoom('fit-viewport', 'auto');
  canvas.zoom(Math.min(1, canvas.zoom() * 0.85), 'auto');
  canvas.scroll({ dx: 50, dy: 0 });
}

function service<K extends keyof Services>(modeler: BpmnModeler, name: K): Services[K] {
  return modeler.get(name);
}

const ENGINE_PROBLEM = 'engine-problem';

/**
 * processdesign (docs/product.md §2.3, hidden): the BPMN modeler of one model (?id=), in the user's
 * language, with pickers for people, forms, conditions and multi-instance beside the Camunda
 * properties, live lint, and save (保存成功，请部署) then deploy.
 */
export default function ProcessDesign({ route }: { route: AppRoute }) {
  const t = useT();
  const language = useLanguage();
  const { message, modal } = App.useApp();
  const [params] = useSearchParams();
  const id = Number(params.get('id'));
  const can = useCanButton('model');
  const canvasRef = useRef<HTMLDivElement>(null);
  const panelRef = useRef<HTMLDivElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const [modeler, setModeler] = useState<BpmnModeler | undefined>();
  const [issues, setIssues] = useState<IssueCounts>({ errors: 0, warnings: 0 });
  const [problems, setProblems] = useState<{ field: string; message: string }[]>([]);
  const [isDirty, setDirty] = useState(false);
  // a file of several processes has a diagram for each: the one shown is picked above the canvas
  const [diagrams, setDiagrams] = useState<{ diagram: Moddled; label: string }[]>([]);
  const [shown, setShown] = useState(0);
  // one call for the model and its diagram (model/get), not the whole list
  const got = useApiGet<ModelRecord & { xml: string | null }>(`${MODEL_API}/get`, { id }, id > 0);
  const model = got.data;
  const { send, isSending } = useApiWrite();
  // the modeler reads the language and t through these: a switch relabels it, edits stay
  const languageRef = useRef(language);
  const tRef = useRef(t);
  languageRef.current = language;
  tRef.current = t;

  useEffect(() => {
    if (!canvasRef.current || !panelRef.current) return undefined;
    const created = createModeler({
      canvas: canvasRef.current,
      panel: panelRef.current,
      language: () => languageRef.current,
      t: (key, options) => tRef.current(key, options),
    });
    service(created, 'eventBus').on('linting.completed', (event) => {
      setIssues(countIssues(event.issues ?? {}));
    });
    service(created, 'eventBus').on('commandStack.changed', () => setDirty(true));
    setModeler(created);
    return () => created.destroy();
  }, []);

  useEffect(() => {
    if (modeler) relabel(modeler);
  }, [modeler, language]);

  const importXml = useCallback(
    async (text: string) => {
      if (!modeler) return;
      try {
        const result = await modeler.importXML(normaliseNamespaces(text));
        if (result.warnings.length > 0)
          void message.warning(t('workflow.modeler.importWarnings', { count: result.warnings.length }));
        // bpmn-js shows the file's first diagram
        setDiagrams(processDiagrams(modeler.getDefinitions()));
        setShown(0);
        fit(modeler);
        setProblems([]);
      } catch (error) {
        setDiagrams([]);
        void message.error(t('workflow.modeler.importFailed', { reason: (error as Error).message }));
      }
    },
    [modeler, message, t],
  );

  // the saved diagram once, when the model has come (a refetch must not replace unsaved edits)
  const importedRef = useRef(false);
  useEffect(() => {
    if (!modeler || !model || importedRef.current) return;
    importedRef.current = true;
    void importXml(model.xml ?? blankDiagram(model.key, model.name)).then(() => setDirty(false));
  }, [modeler, model, importXml]);

  /** The engine's problems on their elements (overlays) and in the list below the canvas. */
  const showProblems = (error: unknown): void => {
    if (!modeler) return;
    const overlays = service(modeler, 'overlays');
    overlays.remove({ type: ENGINE_PROBLEM });
    const found = Object.entries(fieldMessages(error)).flatMap(([field, texts]) =>
      texts.map((text) => ({ field, message: text })),
    );
    setProblems(found);
    for (const problem of found) {
      if (!service(modeler, 'elementRegistry').get(problem.field)) continue;
      const html = document.createElement('div');
      html.className = 'wf-engine-problem';
      html.textContent = problem.message;
      html.setAttribute('data-element', problem.field);
      overlays.add(problem.field, ENGINE_PROBLEM, { position: { bottom: -6, left: 0 }, html });
    }
  };

  const deploy = async (): Promise<void> => {
    try {
      const answer = await send<DeployAnswer>('post', withQuery(`${MODEL_API}/deploy`, { id }));
      void message.success(t('workflow.modeler.deployed', { key: answer.key, version: answer.version }));
      for (const warning of answer.warnings) void message.warning(warning.message);
    } catch (error) {
      showProblems(error);
    }
  };

  const save = async (): Promise<void> => {
    if (!modeler) return;
    const { xml: text } = await modeler.saveXML({ format: true });
    if (!text) return;
    try {
      await send('put', `${MODEL_API}/saveXml`, { id, xml: text });
      if (modeler) service(modeler, 'overlays').remove({ type: ENGINE_PROBLEM });
      setProblems([]);
      setDirty(false);
      // docs/product.md §8: 保存成功，请部署 — and the deploy itself one click away
      modal.confirm({
        title: t('workflow.modeler.savedDeploy'),
        okText: t('workflow.modeler.deploy'),
        cancelText: t('workflow.modeler.later'),
        okButtonProps: { disabled: !can('deploy') },
        onOk: deploy,
      });
    } catch (error) {
      showProblems(error);
    }
  };

  const downloadAs = async (kind: 'xml' | 'svg' | 'png'): Promise<void> => {
    if (!modeler) return;
    const name = model?.key ?? 'process';
    if (kind === 'xml') {
      const { xml: text } = await modeler.saveXML({ format: true });
      saveFile({ fileName: `${name}.bpmn20.xml`, blob: new Blob([text ?? ''], { type: 'application/xml' }) });
      return;
    }
    const { svg } = await modeler.saveSVG();
    if (kind === 'svg')
      saveFile({ fileName: `${name}.svg`, blob: new Blob([svg], { type: 'image/svg+xml' }) });
    else saveFile({ fileName: `${name}.png`, blob: await svgToPng(svg) });
  };

  const showDiagram = async (index: number): Promise<void> => {
    const chosen = diagrams[index];
    if (!modeler || !chosen) return;
    try {
      await openDiagram(modeler, chosen.diagram);
      setShown(index);
      fit(modeler);
    } catch (error) {
      void message.error(t('workflow.modeler.importFailed', { reason: (error as Error).message }));
    }
  };

  const zoom = (factor: number): void => {
    if (!modeler) return;
    const canvas = service(modeler, 'canvas');
    canvas.zoom(canvas.zoom() * factor);
  };
  const stack = modeler ? service(modeler, 'commandStack') : undefined;

  if (!(id > 0)) return <Result status="warning" title={t('workflow.modeler.noModel')} />;
  const tool = (key: string, icon: React.ReactNode, onClick: () => void, testId: string) => (
    <Tooltip title={t(`workflow.modeler.${key}`)}>
      <Button icon={icon} onClick={onClick} aria-label={t(`workflow.modeler.${key}`)} data-testid={testId} />
    </Tooltip>
  );
  return (
    <Card
      title={
        <Space>
          {routeTitle(route)}
          {model ? (
            <Typography.Text type="secondary">{`${model.name}（${model.key}）`}</Typography.Text>
          ) : null}
          {isDirty ? <Tag color="orange">{t('workflow.modeler.unsaved')}</Tag> : null}
        </Space>
      }
      className="admin-page wf-modeler-page"
      data-testid="page-title"
    >
      <Space wrap className="wf-modeler-toolbar" data-testid="modeler-toolbar">
        <Button
          type="primary"
          icon={<SaveOutlined />}
          loading={isSending}
          onClick={() => void save()}
          data-testid="modeler-save"
        >
          {t('workflow.modeler.save')}
        </Button>
        {can('deploy') ? (
          <Button icon={<CloudUploadOutlined />} onClick={() => void deploy()} data-testid="modeler-deploy">
            {t('workflow.modeler.deploy')}
          </Button>
        ) : null}
        <Button
          icon={<UploadOutlined />}
          onClick={() => fileRef.current?.click()}
          data-testid="modeler-import"
        >
          {t('workflow.modeler.importXml')}
        </Button>
        <input
          ref={fileRef}
          type="file"
          accept=".xml,.bpmn,.bpmn20.xml"
          hidden
          aria-label={t('workflow.modeler.importXml')}
          data-testid="modeler-file"
          onChange={(event) => {
            const file = event.target.files?.[0];
            event.target.value = '';
            if (file)
              void file
                .text()
                .then(importXml)
                .then(() => setDirty(true));
          }}
        />
        <Dropdown
          menu={{
            items: (['xml', 'svg', 'png'] as const).map((kind) => ({
              key: kind,
              label: t(`workflow.modeler.download.${kind}`),
              onClick: () => void downloadAs(kind),
            })),
          }}
        >
          <Button icon={<DownloadOutlined />} data-testid="modeler-download">
            {t('workflow.modeler.downloadAs')}
          </Button>
        </Dropdown>
        {tool('undo', <UndoOutlined />, () => stack?.undo(), 'modeler-undo')}
        {tool('redo', <RedoOutlined />, () => stack?.redo(), 'modeler-redo')}
        {tool('zoomIn', <ZoomInOutlined />, () => zoom(1.2), 'modeler-zoom-in')}
        {tool('zoomOut', <ZoomOutOutlined />, () => zoom(1 / 1.2), 'modeler-zoom-out')}
        {tool('fit', <AimOutlined />, () => modeler && fit(modeler), 'modeler-fit')}
        <Tag
          color={issues.errors > 0 ? 'red' : issues.warnings > 0 ? 'gold' : 'green'}
          data-testid="modeler-issues"
        >
          {issues.warnings > 0
            ? t('workflow.modeler.issuesAndWarnings', { count: issues.errors, warnings: issues.warnings })
            : t('workflow.modeler.issues', { count: issues.errors })}
        </Tag>
        <Typography.Text type="secondary" className="wf-modeler-keys">
          {t('workflow.modeler.keys')}
        </Typography.Text>
      </Space>
      {diagrams.length > 1 ? (
        <Select
          className="wf-modeler-diagrams"
          prefix={t('workflow.modeler.process')}
          aria-label={t('workflow.modeler.process')}
          value={shown}
          options={diagrams.map(({ label }, index) => ({ value: index, label }))}
          onChange={(index: number) => void showDiagram(index)}
          data-testid="modeler-diagrams"
        />
      ) : null}
      <div className="wf-modeler">
        <div
          ref={canvasRef}
          className="wf-modeler-canvas"
          data-testid="modeler-canvas"
          role="application"
          aria-label={t('workflow.modeler.canvas')}
        />
        <div className="wf-modeler-side">
          {modeler ? <PanelPickers modeler={modeler} /> : <Spin />}
          <div ref={panelRef} className="wf-modeler-properties" data-testid="modeler-properties" />
        </div>
      </div>
      {problems.length > 0 ? (
        <ul
          className="wf-modeler-problems"
          data-testid="modeler-problems"
          aria-label={t('workflow.modeler.problems')}
        >
          {problems.map((problem) => (
            <li key={`${problem.field}:${problem.message}`}>
              <Typography.Text type="danger">{problem.message}</Typography.Text>
            </li>
          ))}
        </ul>
      ) : null}
    </Card>
  );
}
