import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';

// Only the pieces the workbench draws; this module is its own chunk, loaded after first paint.
echarts.use([
  BarChart,
  LineChart,
  PieChart,
  GridComponent,
  LegendComponent,
  TooltipComponent,
  CanvasRenderer,
]);

export type ChartOption = echarts.EChartsCoreOption;

export interface Chart {
  set(option: ChartOption): void;
  resize(): void;
  dispose(): void;
}

export function createChart(element: HTMLElement): Chart {
  const chart = echarts.init(element);
  return {
    set: (option) => chart.setOption(option, true),
    resize: () => chart.resize(),
    dispose: () => chart.dispose(),
  };
}
