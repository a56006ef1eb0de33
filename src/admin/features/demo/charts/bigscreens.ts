import dayjs from 'dayjs';
import type { Translate } from '../../../i18n.js';
import type { ChartOption } from '../../../lib/charts.js';
import { tenThousands, type Dashboard, type NamedCount } from './api.js';

/**
 * The four big screens of docs/product.md §2.3, as panels on a CSS grid of the 1920×1080 stage. Every
 * panel reads the same dashboard figures (GET /api/demo/dashboard); each screen has a gauge, and
 * the construction and data-analysis screens a map of China coloured by purchases per province.
 */

export type ScreenName = 'construction' | 'electronic' | 'maintenance' | 'dataanalysis';

export interface ScreenStat {
  label: string;
  value: number;
  unit?: string;
}

export interface ScreenRow {
  key: string;
  main: string;
  side: string;
}

export interface ScreenPanel {
  key: string;
  /** i18n key of the panel's title. */
  title: string;
  stats?: (data: Dashboard, t: Translate) => ScreenStat[];
  chart?: (data: Dashboard, t: Translate) => ChartOption;
  list?: (data: Dashboard, t: Translate) => ScreenRow[];
  /** The chart is the map of China (its own chunk, china-map.ts). */
  isMap?: boolean;
}

export interface Screen {
  /** grid-template-areas of the panels (by key). */
  areas: string;
  columns: string;
  panels: ScreenPanel[];
}

const TEXT = '#d6e6ff';
const LINE = 'rgba(120, 170, 255, 0.25)';
const COLORS = ['#35c4ff', '#4ef0b4', '#ffc53d', '#ff7a7a', '#b37feb', '#5cdbd3', '#ff9c6e', '#95de64'];

const axis = {
  axisLine: { lineStyle: { color: LINE } },
  axisLabel: { color: TEXT, fontSize: 14 },
  splitLine: { lineStyle: { color: LINE } },
};
/**
 * The axis labels stay above the legend at the bottom (issue 39 point 10: they overlapped): the
 * grid's edges hold the labels (containLabel) and its bottom leaves the legend's height free.
 */
export const LEGEND_SPACE = 36;
const LEGEND_CLEAR = { containLabel: true, bottom: LEGEND_SPACE } as const;

const base = (): ChartOption => ({
  color: COLORS,
  textStyle: { color: TEXT, fontSize: 14 },
  tooltip: { trigger: 'axis' },
  legend: { textStyle: { color: TEXT, fontSize: 14 }, bottom: 0 },
  grid: { ...LEGEND_CLEAR, left: 24, right: 32, top: 32 },
});

const percent = (part: number, whole: number): number =>
  whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0;

/** A ring gauge of a percentage: the figure in the middle, the ring filled to it. */
function gauge(name: string, value: number, color = COLORS[0]): ChartOption {
  return {
    series: [
      {
        type: 'gauge',
        name,
        min: 0,
        max: 100,
        radius: '92%',
        center: ['50%', '56%'],
        startAngle: 220,
        endAngle: -40,
        progress: { show: true, width: 16, roundCap: true, itemStyle: { color } },
        axisLine: { roundCap: true, lineStyle: { width: 16, color: [[1, 'rgba(120,170,255,0.18)']] } },
        pointer: { show: false },
        anchor: { show: false },
        axisTick: { show: false },
        splitLine: { show: false },
        axisLabel: { show: false },
        title: { show: false },
        detail: {
          valueAnimation: true,
          color: '#ffffff',
          fontSize: 40,
          fontWeight: 600,
          formatter: '{value}%',
          offsetCenter: [0, 0],
        },
        data: [{ value: Math.min(100, value), name }],
      },
    ],
  };
}

const days = (data: Dashboard) => data.signIns.map((entry) => dayjs(entry.day).format('MM-DD'));
const named = (list: NamedCount[], empty: string) =>
  list.map((item) => ({ name: item.name || empty, value: item.count }));

function pie(list: NamedCount[], t: Translate, rose = false): ChartOption {
  return {
    ...base(),
    tooltip: { trigger: 'item', formatter: '{b}: {c} ({d}%)' },
    legend: {
      type: 'scroll',
      bottom: 0,
      textStyle: { color: TEXT, fontSize: 13 },
      pageTextStyle: { color: TEXT },
    },
    series: [
      {
        type: 'pie',
        radius: rose ? ['18%', '62%'] : ['38%', '62%'],
        ...(rose ? { roseType: 'radius' } : {}),
        center: ['50%', '44%'],
        label: { color: TEXT, fontSize: 13 },
        data: named(list, t('charts.empty')),
      },
    ],
  };
}

function signInsLine(data: Dashboard, t: Translate): ChartOption {
  return {
    ...base(),
    xAxis: { type: 'category', boundaryGap: false, data: days(data), ...axis },
    yAxis: { type: 'value', minInterval: 1, ...axis },
    series: [
      {
        name: t('charts.signIns'),
        type: 'line',
        smooth: true,
        areaStyle: { opacity: 0.2 },
        data: data.signIns.map((e) => e.signIns),
      },
      { name: t('charts.signInUsers'), type: 'line', smooth: true, data: data.signIns.map((e) => e.users) },
    ],
  };
}

function monthsMix(data: Dashboard, t: Translate): ChartOption {
  return {
    ...base(),
    xAxis: { type: 'category', data: data.purchasesByMonth.map((e) => e.month.slice(2)), ...axis },
    yAxis: [
      { type: 'value', minInterval: 1, ...axis },
      { type: 'value', ...axis, splitLine: { show: false } },
    ],
    series: [
      {
        name: t('charts.purchaseCount'),
        type: 'bar',
        barMaxWidth: 24,
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
  };
}

function categoryBars(data: Dashboard, t: Translate): ChartOption {
  return {
    ...base(),
    grid: { ...LEGEND_CLEAR, left: 16, right: 48, top: 16 },
    xAxis: { type: 'value', minInterval: 1, ...axis },
    yAxis: {
      type: 'category',
      inverse: true,
      data: data.purchasesByCategory.map((e) => e.name || t('charts.empty')),
      ...axis,
    },
    series: [
      {
        name: t('charts.purchaseCount'),
        type: 'bar',
        barMaxWidth: 18,
        label: { show: true, position: 'right', color: TEXT },
        data: data.purchasesByCategory.map((e) => e.count),
      },
    ],
  };
}

function orgBars(data: Dashboard, t: Translate): ChartOption {
  return {
    ...base(),
    grid: { ...LEGEND_CLEAR, left: 16, right: 48, top: 16 },
    xAxis: { type: 'value', minInterval: 1, ...axis },
    yAxis: { type: 'category', inverse: true, data: data.usersByOrg.map((e) => e.name), ...axis },
    series: [
      {
        name: t('charts.users'),
        type: 'bar',
        barMaxWidth: 18,
        itemStyle: { color: COLORS[1] },
        label: { show: true, position: 'right', color: TEXT },
        data: data.usersByOrg.map((e) => e.count),
      },
    ],
  };
}

function noticeBars(data: Dashboard, t: Translate): ChartOption {
  return {
    ...base(),
    xAxis: { type: 'category', data: days(data), ...axis },
    yAxis: { type: 'value', minInterval: 1, ...axis },
    series: [
      {
        name: t('charts.noticesPublished'),
        type: 'bar',
        barMaxWidth: 14,
        itemStyle: { color: COLORS[2] },
        data: data.notices.map((e) => e.count),
      },
    ],
  };
}

function categoryRadar(data: Dashboard, t: Translate): ChartOption {
  const list = data.purchasesByCategory.slice(0, 8);
  const max = Math.max(1, ...list.map((e) => e.count));
  return {
    ...base(),
    tooltip: { trigger: 'item' },
    radar: {
      indicator: (list.length >= 3
        ? list
        : [...list, { name: '-', count: 0 }, { name: '--', count: 0 }, { name: '---', count: 0 }].slice(0, 3)
      ).map((e) => ({ name: e.name || t('charts.empty'), max })),
      axisName: { color: TEXT, fontSize: 13 },
      splitLine: { lineStyle: { color: LINE } },
      splitArea: { show: false },
      axisLine: { lineStyle: { color: LINE } },
    },
    series: [
      {
        type: 'radar',
        name: t('charts.purchaseCount'),
        areaStyle: { opacity: 0.3 },
        data: [{ value: list.map((e) => e.count), name: t('charts.purchaseCount') }],
      },
    ],
  };
}

/** The provinces coloured by their purchases; the figure shows on hover and on provinces that have some. */
function provinceMap(data: Dashboard, t: Translate): ChartOption {
  const max = Math.max(1, ...data.purchasesByProvince.map((entry) => entry.count));
  return {
    tooltip: {
      trigger: 'item',
      formatter: (item: { name: string; value?: number }) =>
        `${item.name}: ${Number.isFinite(item.value) ? item.value : 0}`,
    },
    visualMap: {
      min: 0,
      max,
      left: 24,
      bottom: 24,
      calculable: true,
      itemHeight: 120,
      text: [t('bigScreen.mapMore'), t('bigScreen.mapLess')],
      textStyle: { color: TEXT, fontSize: 13 },
      inRange: { color: ['#173a6e', '#35c4ff', '#4ef0b4'] },
    },
    series: [
      {
        type: 'map',
        map: 'china',
        name: t('charts.purchaseCount'),
        layoutCenter: ['50%', '54%'],
        layoutSize: '118%',
        selectedMode: false,
        itemStyle: { areaColor: '#10264d', borderColor: 'rgba(120, 170, 255, 0.55)' },
        label: { show: false, color: '#ffffff', fontSize: 12 },
        emphasis: { label: { show: true, color: '#ffffff' }, itemStyle: { areaColor: '#ffc53d' } },
        data: data.purchasesByProvince.map((entry) => ({
          name: entry.name,
          value: entry.count,
          label: { show: true },
        })),
      },
    ],
  };
}

const recentPurchases = (data: Dashboard): ScreenRow[] =>
  data.recentPurchases.map((row) => ({
    key: String(row.id),
    main: row.title,
    side: [row.region ?? '', row.publishTime ? dayjs(row.publishTime).format('MM-DD') : '']
      .filter(Boolean)
      .join(' · '),
  }));

const today = (data: Dashboard) => data.signIns.at(-1)?.signIns ?? 0;

export const SCREENS: Record<ScreenName, Screen> = {
  construction: {
    columns: '1fr 1.3fr 1fr',
    areas: `"stats stats stats" "category map gauge" "category map regions" "recent months regions"`,
    panels: [
      {
        key: 'stats',
        title: 'bigScreen.overview',
        stats: (data, t) => [
          { label: t('charts.purchases'), value: data.totals.purchases },
          {
            label: t('charts.budget'),
            value: Math.round(tenThousands(data.totals.budget)),
            unit: t('charts.tenThousandYuan'),
          },
          { label: t('charts.orgs'), value: data.totals.orgs },
          { label: t('charts.notices'), value: data.totals.notices },
        ],
      },
      { key: 'category', title: 'charts.purchasesByCategory', chart: categoryBars },
      { key: 'map', title: 'bigScreen.provinceMap', chart: provinceMap, isMap: true },
      { key: 'months', title: 'charts.purchasesByMonth', chart: monthsMix },
      {
        key: 'gauge',
        title: 'bigScreen.activeRate',
        chart: (data, t) =>
          gauge(t('bigScreen.activeRate'), percent(data.totals.activeUsers, data.totals.users)),
      },
      {
        key: 'regions',
        title: 'charts.purchasesByRegion',
        chart: (data, t) => pie(data.purchasesByRegion, t),
      },
      { key: 'recent', title: 'bigScreen.recentPurchases', list: recentPurchases },
    ],
  },
  electronic: {
    columns: '1fr 1.4fr 1fr',
    areas: `"stats stats stats" "gauge signins categories" "notices signins categories" "notices recent recent"`,
    panels: [
      {
        key: 'stats',
        title: 'bigScreen.overview',
        stats: (data, t) => [
          { label: t('charts.notices'), value: data.totals.notices },
          { label: t('charts.purchases'), value: data.totals.purchases },
          { label: t('charts.online'), value: data.totals.online },
          { label: t('charts.signInsToday'), value: today(data) },
        ],
      },
      {
        key: 'gauge',
        title: 'bigScreen.onlineRate',
        chart: (data, t) =>
          gauge(t('bigScreen.onlineRate'), percent(data.totals.online, data.totals.activeUsers), COLORS[1]),
      },
      { key: 'signins', title: 'charts.signInsPerDay30', chart: signInsLine },
      {
        key: 'categories',
        title: 'charts.noticesByCategory',
        chart: (data, t) => pie(data.noticesByCategory, t, true),
      },
      { key: 'notices', title: 'charts.noticesPublished', chart: noticeBars },
      { key: 'recent', title: 'bigScreen.recentPurchases', list: recentPurchases },
    ],
  },
  maintenance: {
    columns: '1fr 1fr 1.3fr',
    areas: `"stats stats stats" "active online signins" "orgs status signins" "orgs status signins"`,
    panels: [
      {
        key: 'stats',
        title: 'bigScreen.overview',
        stats: (data, t) => [
          { label: t('charts.users'), value: data.totals.users },
          { label: t('charts.activeUsers'), value: data.totals.activeUsers },
          { label: t('charts.online'), value: data.totals.online },
          { label: t('charts.signInsToday'), value: today(data) },
        ],
      },
      {
        key: 'active',
        title: 'bigScreen.activeRate',
        chart: (data, t) =>
          gauge(t('bigScreen.activeRate'), percent(data.totals.activeUsers, data.totals.users), COLORS[1]),
      },
      {
        key: 'online',
        title: 'bigScreen.onlineRate',
        chart: (data, t) =>
          gauge(t('bigScreen.onlineRate'), percent(data.totals.online, data.totals.activeUsers), COLORS[2]),
      },
      { key: 'signins', title: 'charts.signInsPerDay30', chart: signInsLine },
      { key: 'orgs', title: 'charts.usersByOrg', chart: orgBars },
      {
        key: 'status',
        title: 'charts.usersByStatus',
        chart: (data, t) =>
          pie(
            data.usersByStatus.map((item) => ({
              name: t(`dicts.user_status.${item.name}`),
              count: item.count,
            })),
            t,
          ),
      },
    ],
  },
  dataanalysis: {
    columns: '1fr 1.3fr 1fr',
    areas: `"stats stats stats" "radar map gauge" "radar map regions" "orgs months regions"`,
    panels: [
      {
        key: 'stats',
        title: 'bigScreen.overview',
        stats: (data, t) => [
          { label: t('charts.purchases'), value: data.totals.purchases },
          {
            label: t('charts.budget'),
            value: Math.round(tenThousands(data.totals.budget)),
            unit: t('charts.tenThousandYuan'),
          },
          { label: t('charts.users'), value: data.totals.users },
          { label: t('charts.signIns30'), value: data.signIns.reduce((sum, day) => sum + day.signIns, 0) },
        ],
      },
      { key: 'radar', title: 'charts.purchasesByCategory', chart: categoryRadar },
      { key: 'map', title: 'bigScreen.provinceMap', chart: provinceMap, isMap: true },
      { key: 'months', title: 'charts.purchasesByMonth', chart: monthsMix },
      {
        key: 'gauge',
        title: 'bigScreen.monthShare',
        chart: (data, t) => {
          const year = data.purchasesByMonth.reduce((sum, month) => sum + month.count, 0);
          return gauge(
            t('bigScreen.monthShare'),
            percent(data.purchasesByMonth.at(-1)?.count ?? 0, year),
            COLORS[4],
          );
        },
      },
      {
        key: 'regions',
        title: 'charts.purchasesByRegion',
        chart: (data, t) => pie(data.purchasesByRegion, t, true),
      },
      { key: 'orgs', title: 'charts.usersByOrg', chart: orgBars },
    ],
  },
};
