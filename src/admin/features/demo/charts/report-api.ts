import { useDataProvider } from '@refinedev/core';
import { useQueryClient } from '@tanstack/react-query';
import dayjs from 'dayjs';
import { useCallback } from 'react';
import type { DownloadedFile } from '../../../providers/data.js';
import { saveFile } from '../../../entity/file-api.js';
import type { ChartOption } from '../../../lib/charts.js';
import type {
  ReportChartType,
  ReportDefinition,
  ReportEntity,
  ReportField,
  ReportResult,
  ReportWithResult,
  SavedReport,
} from '../../../../engine/index.js';

/** The report designer's calls (server: features/demo/routes/report.ts). */
export const REPORT_API = '/api/demo/reportdesigner';

export type ChartType = ReportChartType;
export type { ReportDefinition, ReportEntity, ReportField, ReportResult, ReportWithResult, SavedReport };

/** The body of run, xlsx and save: the definition and the browser's time zone (months are its). */
export const definitionBody = (definition: ReportDefinition) => ({
  ...definition,
  utcOffset: dayjs().utcOffset(),
});

/** Downloads a report's .xlsx. */
export function useReportDownload(): (title: string, definition: ReportDefinition) => Promise<void> {
  const provider = useDataProvider()();
  return useCallback(
    async (title, definition) => {
      const answer = await provider.custom?.({
        url: `${REPORT_API}/xlsx`,
        method: 'post',
        payload: { ...definitionBody(definition), title },
        meta: { download: true },
      });
      if (answer) saveFile(answer.data as unknown as DownloadedFile);
    },
    [provider],
  );
}

/** Reads the sidebar again (a saved or deleted report adds or takes away its page). */
export function useReloadMenus(): () => Promise<void> {
  const client = useQueryClient();
  return useCallback(() => client.invalidateQueries({ queryKey: ['admin', 'menus'] }), [client]);
}

/** The chart of a result: the first dimension on the axis (or the slices), a series per measure. */
export function reportOption(
  result: ReportResult,
  chartType: ChartType,
  colors: string[],
): ChartOption | undefined {
  if (chartType === 'table') return undefined;
  const dimensions = result.columns.filter((col) => col.kind === 'dimension');
  const measures = result.columns.filter((col) => col.kind === 'measure');
  const label = (row: ReportResult['rows'][number]): string =>
    dimensions.map((col) => String(row[col.key] ?? '')).join(' / ') || '-';
  const categories = result.rows.map(label);
  if (chartType === 'pie') {
    const measure = measures[0];
    return {
      color: colors,
      tooltip: { trigger: 'item', formatter: '{b}: {c} ({d}%)' },
      legend: { type: 'scroll', bottom: 0 },
      series: [
        {
          type: 'pie',
          name: measure?.title,
          radius: ['30%', '62%'],
          data: result.rows.map((row) => ({ name: label(row), value: measure ? row[measure.key] : 0 })),
        },
      ],
    };
  }
  return {
    color: colors,
    tooltip: { trigger: 'axis' },
    legend: { bottom: 0 },
    grid: { left: 72, right: 72, top: 32, bottom: 72 },
    xAxis: { type: 'category', data: categories, axisLabel: { rotate: categories.length > 8 ? 30 : 0 } },
    // The first measure on the left axis, the others on the right: a count beside a sum of
    // millions would otherwise be a flat line.
    yAxis:
      measures.length > 1
        ? [{ type: 'value' }, { type: 'value', splitLine: { show: false } }]
        : { type: 'value' },
    series: measures.map((col, index) => ({
      type: chartType,
      name: col.title,
      smooth: chartType === 'line',
      barMaxWidth: 40,
      yAxisIndex: index === 0 ? 0 : 1,
      data: result.rows.map((row) => row[col.key]),
    })),
  };
}
