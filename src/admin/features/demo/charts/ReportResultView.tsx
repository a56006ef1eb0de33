import { Alert, Table } from 'antd';
import { thousands } from '../../../../web/format.js';
import { useT } from '../../../i18n.js';
import { EChart } from '../../../lib/EChart.js';
import { useApp } from '../../../store.js';
import { reportOption, type ChartType, type ReportResult } from './report-api.js';

const loadCharts = () => import('./echarts.js');
const PALETTE_TAIL = ['#67c23a', '#e6a23c', '#f56c6c', '#909399', '#36cfc9', '#9254de'];

/** A report's result: its chart (unless a table was chosen) and its table. */
export function ReportResultView({
  result,
  chartType,
  title,
}: {
  result: ReportResult;
  chartType: ChartType;
  title: string;
}) {
  const t = useT();
  const app = useApp();
  const option = reportOption(result, chartType, [app.settings.theme, ...PALETTE_TAIL]);
  return (
    <div data-testid="report-result">
      {result.isTruncated && (
        <Alert type="warning" showIcon message={t('report.truncated')} style={{ marginBottom: 12 }} />
      )}
      {option && (
        <EChart
          option={option}
          testId="report-chart"
          className="demo-chart"
          load={loadCharts}
          label={title}
        />
      )}
      <Table
        size="small"
        rowKey={(_row, index) => String(index)}
        dataSource={result.rows}
        pagination={{ pageSize: 20, hideOnSinglePage: true }}
        columns={result.columns.map((col) => ({
          key: col.key,
          dataIndex: col.key,
          title: col.title,
          align: col.kind === 'measure' ? ('right' as const) : ('left' as const),
          render: (value: unknown) => (typeof value === 'number' ? thousands(value) : String(value ?? '')),
        }))}
      />
    </div>
  );
}
