import { useEffect, useRef } from 'react';
import type { Chart, ChartOption } from './charts.js';

/** A module that draws charts: the workbench's (charts.ts) or one that registers more series. */
export interface ChartModule {
  createChart(element: HTMLElement): Chart;
}

const loadWorkbenchCharts = (): Promise<ChartModule> => import('./charts.js');

/**
 * An echarts chart, loaded on demand (echarts is its own chunk). `load` picks the module (the
 * demo pages' registers gauges and more); it is read once, when the chart is created.
 */
export function EChart({
  option,
  testId,
  className = 'admin-chart',
  load = loadWorkbenchCharts,
  label,
}: {
  option: ChartOption | undefined;
  testId: string;
  className?: string;
  load?: () => Promise<ChartModule>;
  /** What the chart shows, for screen readers (the canvas itself says nothing). */
  label?: string;
}) {
  const element = useRef<HTMLDivElement | null>(null);
  const chart = useRef<Chart | undefined>(undefined);
  // The newest option: data may arrive while the chart module is still loading.
  const latestOption = useRef(option);
  latestOption.current = option;
  const loader = useRef(load);
  useEffect(() => {
    let isMounted = true;
    // Sized by its container: a chart created while the layout is still settling (0 px wide)
    // must resize when the container gets its size, not only on window resizes.
    const observer = new ResizeObserver(() => chart.current?.resize());
    if (element.current) observer.observe(element.current);
    void loader.current().then(({ createChart }) => {
      if (!isMounted || !element.current) return;
      chart.current = createChart(element.current);
      if (latestOption.current) chart.current.set(latestOption.current);
    });
    return () => {
      isMounted = false;
      observer.disconnect();
      chart.current?.dispose();
      chart.current = undefined;
    };
    // The chart is created once; option changes are applied below.
  }, []);
  useEffect(() => {
    if (option) chart.current?.set(option);
  }, [option]);
  return (
    <div
      ref={element}
      className={className}
      data-testid={testId}
      {...(label ? { role: 'img', 'aria-label': label } : {})}
    />
  );
}
