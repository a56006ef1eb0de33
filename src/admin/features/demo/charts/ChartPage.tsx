import { Alert, Card, Col, Row } from 'antd';
import dayjs from 'dayjs';
import { useT } from '../../../i18n.js';
import { EChart } from '../../../lib/EChart.js';
import type { ChartOption } from '../../../lib/charts.js';
import { useApp } from '../../../store.js';
import { tenThousands, useDashboard, type Dashboard, type NamedCount } from './api.js';
import './charts.css';

export type ChartKind = 'line' | 'bar' | 'pie' | 'mix';

const DAYS = 30;
const loadCharts = () => import('./echarts.js');
const PALETTE_TAIL = ['#67c23a', '#e6a23c', '#f56c6c', '#909399', '#36cfc9', '#9254de', '#ff85c0'];

const pieData = (list: NamedCount[], empty: string) =>
  list.map((item) => ({ name: item.name || empty, value: item.count }));

interface Panel {
  key: string;
  title: string;
  option: ChartOption;
  span?: number;
}

function panels(kind: ChartKind, data: Dashboard, t: ReturnType<typeof useT>, colors: string[]): Panel[] {
  const days = data.signIns.map((entry) => dayjs(entry.day).format('MM-DD'));
  const empty = t('charts.empty');
  const axisGrid = { left: 56, right: 56, top: 40, bottom: 56 };
  switch (kind) {
    case 'line':
      return [
        {
          key: 'signins',
          title: t('charts.signInsPerDay', { days: DAYS }),
          option: {
            color: colors,
            tooltip: { trigger: 'axis' },
            legend: { bottom: 0 },
            grid: axisGrid,
            xAxis: { type: 'category', boundaryGap: false, data: days },
            yAxis: { type: 'value', minInterval: 1 },
            dataZoom: [{ type: 'inside' }],
            series: [
              {
                name: t('charts.signIns'),
                type: 'line',
                smooth: true,
                areaStyle: { opacity: 0.12 },
                data: data.signIns.map((e) => e.signIns),
              },
              {
                name: t('charts.signInUsers'),
                type: 'line',
                smooth: true,
                data: data.signIns.map((e) => e.users),
              },
              {
                name: t('charts.noticesPublished'),
                type: 'line',
                step: 'middle',
                data: data.notices.map((e) => e.count),
              },
            ],
          },
        },
      ];
    case 'bar':
      return [
        {
          key: 'purchases-category',
          title: t('charts.purchasesByCategory'),
          span: 12,
          option: {
            color: colors,
            tooltip: { trigger: 'axis' },
            grid: axisGrid,
            xAxis: {
              type: 'category',
              data: data.purchasesByCategory.map((e) => e.name || empty),
              axisLabel: { interval: 0, rotate: 30 },
            },
            yAxis: { type: 'value', minInterval: 1 },
            series: [
              {
                name: t('charts.purchaseCount'),
                type: 'bar',
                barMaxWidth: 36,
                data: data.purchasesByCategory.map((e) => e.count),
              },
            ],
          },
        },
        {
          key: 'users-org',
          title: t('charts.usersByOrg'),
          span: 12,
          option: {
            color: colors.slice(1, 2),
            tooltip: { trigger: 'axis' },
            grid: { left: 140, right: 32, top: 24, bottom: 32 },
            xAxis: { type: 'value', minInterval: 1 },
            yAxis: { type: 'category', inverse: true, data: data.usersByOrg.map((e) => e.name) },
            series: [
              {
                name: t('charts.users'),
                type: 'bar',
                barMaxWidth: 24,
                label: { show: true, position: 'right' },
                data: data.usersByOrg.map((e) => e.count),
              },
            ],
          },
        },
      ];
    case 'pie':
      return [
        {
          key: 'users-org',
          title: t('charts.usersByOrg'),
          span: 12,
          option: {
            color: colors,
            tooltip: { trigger: 'item', formatter: '{b}: {c} ({d}%)' },
            legend: { bottom: 0, type: 'scroll' },
            series: [
              {
                name: t('charts.users'),
                type: 'pie',
                radius: ['35%', '65%'],
                data: pieData(data.usersByOrg, empty),
              },
            ],
          },
        },
        {
          key: 'notices-category',
          title: t('charts.noticesByCategory'),
          span: 12,
          option: {
            color: colors,
            tooltip: { trigger: 'item', formatter: '{b}: {c} ({d}%)' },
            legend: { bottom: 0, type: 'scroll' },
            series: [
              {
                name: t('charts.notices'),
                type: 'pie',
                roseType: 'radius',
                radius: ['20%', '65%'],
                data: pieData(data.noticesByCategory, empty),
              },
            ],
          },
        },
      ];
    case 'mix':
      return [
        {
          key: 'purchases-month',
          title: t('charts.purchasesByMonth'),
          option: {
            color: colors,
            tooltip: { trigger: 'axis' },
            legend: { bottom: 0 },
            grid: axisGrid,
            xAxis: { type: 'category', data: data.purchasesByMonth.map((e) => e.month) },
            yAxis: [
              { type: 'value', name: t('charts.purchaseCount'), minInterval: 1 },
              { type: 'value', name: t('charts.budgetUnit') },
            ],
            series: [
              {
                name: t('charts.purchaseCount'),
                type: 'bar',
                barMaxWidth: 32,
                data: data.purchasesByMonth.map((e) => e.count),
              },
              {
                name: t('charts.budget'),
                type: 'line',
                yAxisIndex: 1,
                smooth: true,
                data: data.purchasesByMonth.map((e) => tenThousands(e.budget)),
              },
            ],
          },
        },
      ];
  }
}

/** docs/product.md §2.3 chart gallery: line, bar, pie and mixed charts of the tenant's real figures. */
export default function ChartPage({ kind }: { kind: ChartKind }) {
  const t = useT();
  const app = useApp();
  const { data, isError } = useDashboard(DAYS);
  const colors = [app.settings.theme, ...PALETTE_TAIL];
  if (isError) return <Alert type="error" showIcon message={t('charts.loadFailed')} />;
  return (
    <div className="demo-charts" data-testid={`demo-chart-${kind}`}>
      <p className="admin-muted">{t(`charts.intro.${kind}`)}</p>
      <Row gutter={[16, 16]}>
        {(data
          ? panels(kind, data, t, colors)
          : [{ key: 'loading', title: t('charts.loading'), option: {} }]
        ).map((panel) => (
          <Col key={panel.key} xs={24} lg={panel.span ?? 24}>
            <Card type="inner" title={panel.title}>
              <EChart
                option={data ? panel.option : undefined}
                testId={`chart-${panel.key}`}
                className="demo-chart"
                load={loadCharts}
                label={panel.title}
              />
            </Card>
          </Col>
        ))}
      </Row>
    </div>
  );
}
