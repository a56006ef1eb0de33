/**
 * Issue 39 point 10: on the big screens the legend at the bottom sat on the x axis' labels (the
 * grid left 24-48 px below the plot for labels and legend together). Every chart with axes and a
 * legend at the bottom keeps its labels inside the grid and the legend's height free below it.
 */
import { describe, expect, it } from 'vitest';
import { LEGEND_SPACE, SCREENS } from '../../src/admin/features/demo/charts/bigscreens.js';
import type { Dashboard } from '../../src/engine/api-types.js';

const dashboard = {
  totals: {},
  signIns: [{ day: '2026-12-01', signIns: 3, users: 2 }],
  notices: [{ day: '2026-12-01', count: 1 }],
  noticesByCategory: [{ name: '政策', count: 2 }],
  purchasesByMonth: [{ month: '2026-12', count: 4, budget: 120000 }],
  purchasesByCategory: [{ name: '水处理设备', count: 4 }],
  purchasesByRegion: [{ name: '华东', count: 4 }],
  purchasesByProvince: [{ name: '江苏', count: 4 }],
  usersByOrg: [{ name: '环保产业采购招投标平台运营中心', count: 3 }],
  usersByStatus: [{ name: '1', count: 3 }],
  recentPurchases: [],
  generatedAt: '2026-12-05T00:00:00Z',
} as unknown as Dashboard;
const t = (key: string): string => key;

interface Grid {
  containLabel?: boolean;
  bottom?: number;
}

describe('big-screen legends clear the axis labels', () => {
  const charts = Object.entries(SCREENS).flatMap(([screen, { panels }]) =>
    panels
      .filter((panel) => panel.chart && !panel.isMap)
      .map((panel) => ({ name: `${screen}/${panel.key}`, option: panel.chart?.(dashboard, t) ?? {} })),
  );

  it('has charts with axes to check', () => {
    expect(charts.filter(({ option }) => 'xAxis' in option).length).toBeGreaterThan(3);
  });

  it.each(charts.map((chart) => [chart.name, chart.option] as const))('%s', (_name, option) => {
    if (!('xAxis' in option)) return;
    const legend = option.legend as { bottom?: number; show?: boolean } | undefined;
    if (!legend || legend.show === false || legend.bottom === undefined) return;
    const grid = option.grid as Grid;
    expect(grid.containLabel).toBe(true);
    expect(grid.bottom ?? 0).toBeGreaterThanOrEqual(LEGEND_SPACE);
  });
});
