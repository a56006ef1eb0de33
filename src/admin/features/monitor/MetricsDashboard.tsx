import { Card, Col, Row, Segmented, Select, Space, Statistic, Table, Tag } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { routeTitle, useT } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import { createChart, type Chart, type ChartOption } from '../../lib/charts.js';
import { useApiGet } from '../../lib/api.js';
import { MONITOR_API, type MetricSample, type RouteStat, type MetricSamples } from './monitor-api.js';
import './monitor.css';

const LIVE_MS = 5_000;
const RANGES = [5, 15, 60, 360] as const;
const ALL = '';

/** A row of the route table: a route as one process counted it. */
type InstanceRoute = RouteStat & { instance: string };

type Figure =
  'rps' | 'latency' | 'errorRate' | 'heapMb' | 'loopLagMs' | 'dbAvgMs' | 'activeSessions' | 'pool';
const FIGURES: readonly Figure[] = [
  'rps',
  'latency',
  'errorRate',
  'heapMb',
  'loopLagMs',
  'dbAvgMs',
  'activeSessions',
  'pool',
];

/** The pool chart's lines per instance: connections in use, clients waiting, the pool's size. */
const POOL_LINES = [
  ['poolInUse', 'monitor.metrics.poolInUse'],
  ['poolWaiting', 'monitor.metrics.poolWaiting'],
  ['poolMax', 'monitor.metrics.poolMax'],
] as const;

/** One chart: a line per instance (latency: p50, p95 and p99 per instance). */
function LineChart({ option, testId }: { option: ChartOption; testId: string }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<Chart | undefined>(undefined);
  useEffect(() => {
    if (!box.current) return undefined;
    const created = createChart(box.current);
    chart.current = created;
    const resize = (): void => created.resize();
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      created.dispose();
      chart.current = undefined;
    };
  }, []);
  useEffect(() => {
    chart.current?.set(option);
  }, [option]);
  return <div ref={box} className="monitor-chart" data-testid={testId} role="img" aria-label={testId} />;
}

function seriesOf(
  figure: Figure,
  instances: MetricSamples['instances'],
  short: (name: string) => string,
  t: (key: string) => string,
) {
  const point = (sample: MetricSample, value: number): [string, number] => [sample.at, value];
  return instances.flatMap(({ instance, samples }) => {
    if (figure === 'pool') {
      return POOL_LINES.map(([field, label]) => ({
        name: `${short(instance)} ${t(label)}`.trim(),
        type: 'line',
        step: 'end',
        showSymbol: false,
        // Samples stored before these figures existed have none: no point rather than a false 0.
        data: samples.flatMap((sample) => {
          const value = sample[field];
          return value === undefined ? [] : [point(sample, value)];
        }),
      }));
    }
    if (figure === 'activeSessions') {
      return [
        {
          name: short(instance),
          type: 'line',
          showSymbol: false,
          data: samples.flatMap((sample) =>
            sample.activeSessions === undefined ? [] : [point(sample, sample.activeSessions)],
          ),
        },
      ];
    }
    if (figure === 'latency') {
      return (['p50', 'p95', 'p99'] as const).map((name) => ({
        name: `${short(instance)} ${name}`,
        type: 'line',
        showSymbol: false,
        data: samples.map((sample) => point(sample, sample[name])),
      }));
    }
    return [
      {
        name: short(instance),
        type: 'line',
        showSymbol: false,
        data: samples.map((sample) => point(sample, sample[figure])),
      },
    ];
  });
}

/**
 * Metrics dashboard (docs/product.md §2.3 monitor/metrics): every server process's samples (requests/s,
 * latency percentiles, error rate, heap, event-loop lag, DB time) over a chosen range, refreshed
 * live, and the routes of every live process sorted by p95; an instance selector narrows the
 * charts, the figures and the routes to one process.
 */
export default function MetricsDashboard({ route }: { route: AppRoute }) {
  const t = useT();
  const [minutes, setMinutes] = useState<number>(15);
  const answer = useApiGet<MetricSamples>(`${MONITOR_API}/metrics/samples`, { minutes });
  const { refetch } = answer;
  useEffect(() => {
    const timer = setInterval(() => void refetch(), LIVE_MS);
    return () => clearInterval(timer);
  }, [refetch]);
  const data = answer.data;
  // The live point of this process: the dashboard has figures before the first sample is stored.
  const instances = useMemo(() => {
    if (!data) return [];
    const list = data.instances.map((entry) => ({ ...entry, samples: [...entry.samples] }));
    if (data.current.at) {
      const own = list.find((entry) => entry.instance === data.instance);
      if (own) own.samples.push(data.current);
      else list.push({ instance: data.instance, samples: [data.current] });
    }
    return list;
  }, [data]);
  const names = useMemo(
    () =>
      [
        ...new Set([
          ...instances.map((entry) => entry.instance),
          ...(data?.instanceRoutes ?? []).map((entry) => entry.instance),
        ]),
      ].sort(),
    [instances, data],
  );
  const [selected, setSelected] = useState<string>(ALL);
  // An instance that stopped leaves the selection.
  const instance = names.includes(selected) ? selected : ALL;
  const shown = useMemo(
    () => (instance === ALL ? instances : instances.filter((entry) => entry.instance === instance)),
    [instances, instance],
  );
  const routes = useMemo(
    (): InstanceRoute[] =>
      (data?.instanceRoutes ?? [])
        .filter((entry) => instance === ALL || entry.instance === instance)
        .flatMap((entry) => entry.routes.map((row) => ({ ...row, instance: entry.instance }))),
    [data, instance],
  );
  const options = useMemo(() => {
    const short = (name: string): string => (shown.length > 1 ? name : '');
    return Object.fromEntries(
      FIGURES.map((figure): [Figure, ChartOption] => [
        figure,
        {
          tooltip: { trigger: 'axis' },
          legend: { show: shown.length > 1 || figure === 'latency' || figure === 'pool', top: 0 },
          grid: { left: 48, right: 16, top: 32, bottom: 28 },
          xAxis: { type: 'time', splitNumber: 4, axisLabel: { hideOverlap: true } },
          yAxis: { type: 'value', name: t(`monitor.metrics.unit.${figure}`) },
          series: seriesOf(figure, shown, short, t),
        },
      ]),
    ) as Record<Figure, ChartOption>;
  }, [shown, t]);
  // The figures: this process's live interval, or the last sample of the instance chosen.
  const current = instance === ALL || instance === data?.instance ? data?.current : shown[0]?.samples.at(-1);
  const instanceLabel = (name: string): string =>
    name === data?.instance ? `${name} (${t('monitor.metrics.thisInstance')})` : name;
  return (
    <Card
      title={routeTitle(route)}
      className="admin-page"
      data-testid="page-title"
      extra={
        <Space wrap>
          <Select
            value={instance}
            onChange={setSelected}
            style={{ minWidth: 220 }}
            aria-label={t('monitor.metrics.instanceSelect')}
            data-testid="metrics-instance"
            options={[
              { value: ALL, label: `${t('monitor.metrics.allInstances')} (${names.length})` },
              ...names.map((name) => ({ value: name, label: instanceLabel(name) })),
            ]}
          />
          <Segmented
            value={minutes}
            onChange={(value) => setMinutes(Number(value))}
            options={RANGES.map((value) => ({
              value,
              label: t('monitor.metrics.lastMinutes', { count: value }),
            }))}
            data-testid="metrics-range"
          />
        </Space>
      }
    >
      <Row gutter={[16, 16]} className="monitor-stats">
        <Col xs={12} md={4}>
          <Statistic title={t('monitor.metrics.rps')} value={current?.rps ?? 0} data-testid="stat-rps" />
        </Col>
        <Col xs={12} md={4}>
          <Statistic title={t('monitor.metrics.p95')} value={current?.p95 ?? 0} suffix="ms" />
        </Col>
        <Col xs={12} md={4}>
          <Statistic
            title={t('monitor.metrics.errorRate')}
            value={((current?.errorRate ?? 0) * 100).toFixed(1)}
            suffix="%"
          />
        </Col>
        <Col xs={12} md={4}>
          <Statistic title={t('monitor.metrics.heapMb')} value={current?.heapMb ?? 0} suffix="MB" />
        </Col>
        <Col xs={12} md={4}>
          <Statistic title={t('monitor.metrics.loopLagMs')} value={current?.loopLagMs ?? 0} suffix="ms" />
        </Col>
        <Col xs={12} md={4}>
          <Statistic title={t('monitor.metrics.instances')} value={names.length} />
        </Col>
      </Row>
      <Row gutter={[16, 16]}>
        {FIGURES.map((figure) => (
          <Col xs={24} lg={12} key={figure}>
            <Card size="small" title={t(`monitor.metrics.${figure}`)}>
              <LineChart option={options[figure]} testId={`chart-${figure}`} />
            </Card>
          </Col>
        ))}
      </Row>
      <Card
        size="small"
        className="monitor-section"
        title={
          <>
            {t('monitor.metrics.routes')}{' '}
            <Tag>{instance === ALL ? t('monitor.metrics.allInstances') : instanceLabel(instance)}</Tag>
          </>
        }
      >
        <Table<InstanceRoute>
          // a phone scrolls the table in its own box, columns unsqueezed (issue 39 point 9)
          scroll={{ x: 'max-content' }}
          size="small"
          rowKey={(row) => `${row.instance} ${row.method} ${row.route}`}
          dataSource={routes}
          loading={answer.isLoading}
          pagination={{ pageSize: 20 }}
          data-testid="metrics-routes"
          columns={[
            ...(instance === ALL && names.length > 1
              ? [
                  {
                    title: t('monitor.metrics.instance'),
                    dataIndex: 'instance',
                    width: 200,
                    ellipsis: true,
                    sorter: (a: InstanceRoute, b: InstanceRoute) => a.instance.localeCompare(b.instance),
                  },
                ]
              : []),
            { title: t('monitor.metrics.route'), dataIndex: 'route', ellipsis: true },
            { title: t('monitor.metrics.method'), dataIndex: 'method', width: 90 },
            {
              title: t('monitor.metrics.count'),
              dataIndex: 'count',
              width: 90,
              sorter: (a, b) => a.count - b.count,
            },
            {
              title: t('monitor.metrics.errors'),
              dataIndex: 'errors',
              width: 130,
              sorter: (a, b) => a.errors - b.errors,
            },
            { title: 'p50 (ms)', dataIndex: 'p50', width: 100, sorter: (a, b) => a.p50 - b.p50 },
            {
              title: 'p95 (ms)',
              dataIndex: 'p95',
              width: 100,
              sorter: (a, b) => a.p95 - b.p95,
              defaultSortOrder: 'descend',
            },
            { title: 'p99 (ms)', dataIndex: 'p99', width: 100, sorter: (a, b) => a.p99 - b.p99 },
            {
              title: t('monitor.metrics.max'),
              dataIndex: 'maxMs',
              width: 100,
              sorter: (a, b) => a.maxMs - b.maxMs,
            },
          ]}
        />
      </Card>
    </Card>
  );
}
