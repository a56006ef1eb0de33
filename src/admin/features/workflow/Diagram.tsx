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
 * progress of an instance as marker classes (wf-completed, wf-active, wf-taken). Only the
 * pages that show a diagram load this module, and with it bpmn-js and its styles.
 */
export default function Diagram({ xml, progress }: { xml: string; progress?: Progress | undefined }) {
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
    setProblem(null);
    instance.importXML(xml).then(
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
          mark(progress.active, 'wf-active');
        }
        canvas.zoom('fit-viewport', 'auto');
      },
      (error: unknown) => {
        if (isCurrent) setProblem(error instanceof Error ? error.message : String(error));
      },
    );
    return () => {
      isCurrent = false;
    };
  }, [xml, progress]);

  const fit = (): void => void viewer.current?.get<Canvas>('canvas').zoom('fit-viewport', 'auto');

  return (
    <div className="wf-diagram-box">
      {problem && (
        <Alert type="error" showIcon message={t('workflow.screens.diagramError')} description={problem} />
      )}
      <Flex gap={8} className="wf-diagram-tools">
        <Button size="small" onClick={fit} data-testid="diagram-fit">
          {t('workflow.screens.fit')}
        </Button>
        {progress && (
          <Flex gap={12} align="center" className="wf-legend" aria-hidden>
            <span className="wf-legend-done">{t('workflow.screens.legendDone')}</span>
            <span className="wf-legend-active">{t('workflow.screens.legendActive')}</span>
          </Flex>
        )}
      </Flex>
      {/* a region, not an image: the viewer holds a focusable link (bpmn.io) */}
      <section
        ref={container}
        className="wf-diagram"
        aria-label={t('workflow.screens.diagramLabel')}
        data-testid="wf-diagram"
      />
    </div>
  );
}
