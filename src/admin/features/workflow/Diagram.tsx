import NavigatedViewer from 'bpmn-js/lib/NavigatedViewer';
import 'bpmn-js/dist/assets/diagram-js.css';
import 'bpmn-js/dist/assets/bpmn-js.css';
import { Alert, Button, Flex } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useT } from '../../i18n.js';
import './workflow.css';

/** The progress a diagram shows: completed activities and flows in one colour, waiting ones marked. */
export interface Progress {
  completed: string[];
  active: string[];
  /** Steps whose last task was rejected or sent back (red). */
  rejected: string[];
  flows: string[];
}

interface Canvas {
  addMarker: (element: string, marker: string) => void;
  zoom: (level: 'fit-viewport' | number, center?: 'auto') => number;
}

interface Registry {
  get: (id: string) => unknown;
}

/**
 * A read-only BPMN diagram (bpmn-js NavigatedViewer: pan and zoom, no editing), with the
 * progress of an instance as marker classes (wf-completed, wf-rejected, wf-active, wf-taken). Only the
 * pages that show a diagram load this module, and with it bpmn-js and its styles.
 */
/** What bpmn-js says of a file without a diagram part (BPMNDiagram): a process deployed from code. */
const NO_DIAGRAM = 'no diagram to display';

const hasSize = (element: HTMLElement | null): boolean =>
  element !== null && element.clientWidth > 0 && element.clientHeight > 0;

/**
 * Runs `then` once the box is shown: a box not shown (an inactive tab, a page kept hidden) has no
 * size, and bpmn-js drawing into it keeps a viewbox of scale 0, from which a later zoom makes a
 * non-finite matrix (it throws). Answers the observer that waits, if any.
 */
function whenShown(element: HTMLElement | null, then: () => void): ResizeObserver | undefined {
  if (!element || hasSize(element)) {
    then();
    return undefined;
  }
  const observer = new ResizeObserver(() => {
    if (!hasSize(element)) return;
    observer.disconnect();
    then();
  });
  observer.observe(element);
  return observer;
}

const DI = 'http://www.omg.org/spec/BPMN/20100524/DI';

/**
 * The diagram of a file that draws the process `key` (a file of several processes has one per
 * process); none when the file has no such diagram of its own (a collaboration): its first.
 */
export function diagramOf(xml: string, key: string | undefined): string | undefined {
  if (!key) return undefined;
  const file = new DOMParser().parseFromString(xml, 'application/xml');
  for (const plane of Array.from(file.getElementsByTagNameNS(DI, 'BPMNPlane')))
    if (plane.getAttribute('bpmnElement') === key)
      return plane.parentElement?.getAttribute('id') ?? undefined;
  return undefined;
}

export default function Diagram({
  xml,
  progress,
  processKey,
}: {
  xml: string;
  progress?: Progress | undefined;
  /** Of a file of several processes, the one to show. */
  processKey?: string | undefined;
}) {
  const t = useT();
  const container = useRef<HTMLElement | null>(null);
  const viewer = useRef<NavigatedViewer | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    if (!container.current) return undefined;
    const instance = new NavigatedViewer({ container: container.current });
    viewer.current = instance;
    return () => {
      instance.destroy();
      viewer.current = null;
    };
  }, []);

  useEffect(() => {
    const instance = viewer.current;
    if (!instance) return;
    let isCurrent = true;
    let waitingToFit: ResizeObserver | undefined;
    setProblem(null);
    const draw = (): void =>
      void instance.importXML(xml, diagramOf(xml, processKey)).then(
        () => {
          if (!isCurrent) return;
          const canvas = instance.get<Canvas>('canvas');
          const registry = instance.get<Registry>('elementRegistry');
          const mark = (ids: string[], marker: string): void => {
            for (const id of ids) if (registry.get(id)) canvas.addMarker(id, marker);
          };
          if (progress) {
            mark(progress.completed, 'wf-completed');
            mark(progress.flows, 'wf-taken');
            mark(progress.rejected, 'wf-rejected');
            mark(progress.active, 'wf-active');
          }
          // the box may have been hidden while the file was read (a tab changed): fitted when shown
          waitingToFit = whenShown(container.current, () => {
            if (isCurrent) canvas.zoom('fit-viewport', 'auto');
          });
        },
        (error: unknown) => {
          if (isCurrent) setProblem(error instanceof Error ? error.message : String(error));
        },
      );
    // drawn once its box shows (see whenShown)
    const waiting = whenShown(container.current, draw);
    return () => {
      isCurrent = false;
      waiting?.disconnect();
      waitingToFit?.disconnect();
    };
  }, [xml, progress, processKey]);

  const fit = (): void => {
    const canvas = viewer.current?.get<Canvas>('canvas');
    if (canvas && hasSize(container.current)) canvas.zoom('fit-viewport', 'auto');
  };

  return (
    <div className="wf-diagram-box">
      {problem === NO_DIAGRAM ? (
        <Alert type="info" showIcon message={t('workflow.screens.noDiagram')} data-testid="wf-no-diagram" />
      ) : (
        problem && (
          <Alert type="error" showIcon message={t('workflow.screens.diagramError')} description={problem} />
        )
      )}
      {problem !== NO_DIAGRAM && (
        <Flex gap={8} className="wf-diagram-tools">
          <Button size="small" onClick={fit} data-testid="diagram-fit">
            {t('workflow.screens.fit')}
          </Button>
          {progress && (
            <Flex gap={12} align="center" className="wf-legend" aria-hidden>
              <span className="wf-legend-done">{t('workflow.screens.legendDone')}</span>
              <span className="wf-legend-active">{t('workflow.screens.legendActive')}</span>
              {progress.rejected.length > 0 && (
                <span className="wf-legend-rejected">{t('workflow.screens.legendRejected')}</span>
              )}
            </Flex>
          )}
        </Flex>
      )}
      {/* a region, not an image: the viewer holds a focusable link (bpmn.io) */}
      <section
        ref={container}
        className={problem === NO_DIAGRAM ? 'wf-diagram wf-diagram-none' : 'wf-diagram'}
        aria-label={t('workflow.screens.diagramLabel')}
        data-testid="wf-diagram"
      />
    </div>
  );
}
