import {
  ApartmentOutlined,
  NotificationOutlined,
  ScheduleOutlined,
  TeamOutlined,
  UserOutlined,
} from '@ant-design/icons';
import { useCustom, useGetIdentity, useList, type CrudFilter } from '@refinedev/core';
import { Card, Col, Row, Statistic } from 'antd';
import dayjs from 'dayjs';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { SignInDay } from '../../../engine/api-types.js';
import { thousands } from '../../../web/format.js';
import { routeTitle, useT } from '../../i18n.js';
import { useMenus } from '../../layout/MenuProvider.js';
import { entityOf, flatten } from '../../lib/menus.js';
import { useOpenTaskCounts } from '../workflow/badges.js';
import type { SysUser } from '../../providers/auth.js';
import { useApp } from '../../store.js';
import type { ChartOption } from '../../lib/charts.js';
import { EChart } from '../../lib/EChart.js';

const DAYS = 14;

/** A count from the query endpoint's total; only for entities whose screen the user's menus hold. */
function useTotal(resource: string, isAllowed: boolean, filters: CrudFilter[] = []): number | undefined {
  const { result } = useList({
    resource,
    pagination: { currentPage: 1, pageSize: 1 },
    filters,
    meta: { silent: true },
    queryOptions: { enabled: isAllowed, retry: false },
  });
  return isAllowed ? result.total : undefined;
}

/** Sign-ins per day of the tenant (GET /api/admin/sysuser/querySignInsPerDay), days in the browser's time zone. */
function useSignIns(isAllowed: boolean): SignInDay[] | undefined {
  const { query } = useCustom<SignInDay[]>({
    url: '/api/admin/sysuser/querySignInsPerDay',
    method: 'get',
    config: { query: { days: DAYS, utcOffset: dayjs().utcOffset() } },
    meta: { silent: true },
    queryOptions: { enabled: isAllowed, retry: false, refetchOnWindowFocus: false },
  });
  return isAllowed ? query.data?.data : undefined;
}

function Stat({ title, value, icon }: { title: string; value: number | undefined; icon: ReactNode }) {
  return (
    <Card className="admin-stat">
      <Statistic
        title={title}
        value={value ?? '-'}
        prefix={icon}
        formatter={(text) => (typeof text === 'number' ? thousands(text) : text)}
      />
    </Card>
  );
}

/** docs/product.md §2.3 workbench: counts from real data and charts (users, organisations, notifications, roles, sign-ins and new users per day). */
export default function Workbench() {
  const t = useT();
  const app = useApp();
  const { data: user } = useGetIdentity<SysUser>();
  const { routes } = useMenus();
  const allowed = new Set(flatten(routes).map(entityOf));
  const users = useTotal('sysuser', allowed.has('sysuser'));
  const orgs = useTotal('sysorg', allowed.has('sysorg'));
  const notifications = useTotal('notification', allowed.has('notification'));
  const roles = useTotal('sysrole', allowed.has('sysrole'));
  const active = useTotal('sysuser', allowed.has('sysuser'), [
    { field: 'status', operator: 'eq', value: '1' },
  ]);
  const since = dayjs()
    .subtract(DAYS - 1, 'day')
    .startOf('day');
  const { result: recent } = useList({
    resource: 'sysuser',
    pagination: { currentPage: 1, pageSize: 1000 },
    filters: [{ field: 'createdAt', operator: 'between', value: [since.toISOString(), ''] }],
    sorters: [{ field: 'createdAt', order: 'desc' }],
    meta: { silent: true },
    queryOptions: { enabled: allowed.has('sysuser'), retry: false },
  });

  const signIns = useSignIns(allowed.has('sysuser'));
  const paths = new Set(flatten(routes).map((route) => route.path));
  const taskCounts = useOpenTaskCounts(paths.has('/assigneetask') || paths.has('/candidatetask'));

  const title = (code: string): string => routeTitle({ code, name: code });
  const color = app.settings.theme;
  const days = Array.from({ length: DAYS }, (_unused, index) => since.add(index, 'day').format('MM-DD'));
  const perDay = days.map(
    (day) => recent.data.filter((record) => dayjs(String(record.createdAt)).format('MM-DD') === day).length,
  );

  // Only what the user's menus allow (a buyer without admin screens sees no counts).
  const canSeeUsers = allowed.has('sysuser');
  const stats = [
    { code: 'sysuser', value: users, icon: <UserOutlined /> },
    { code: 'sysorg', value: orgs, icon: <ApartmentOutlined /> },
    { code: 'notification', value: notifications, icon: <NotificationOutlined /> },
    { code: 'sysrole', value: roles, icon: <TeamOutlined /> },
  ].filter((stat) => allowed.has(stat.code));
  const isCounted = stats.every((stat) => stat.value !== undefined);
  const countsOption: ChartOption | undefined = isCounted
    ? {
        color: [color],
        tooltip: {},
        grid: { left: 40, right: 16, top: 24, bottom: 32 },
        xAxis: { type: 'category', data: stats.map((stat) => title(stat.code)) },
        yAxis: { type: 'value', minInterval: 1 },
        series: [{ type: 'bar', barMaxWidth: 40, data: stats.map((stat) => stat.value ?? 0) }],
      }
    : undefined;
  const statusOption: ChartOption | undefined =
    users === undefined || active === undefined
      ? undefined
      : {
          color: [color, '#c0c4cc'],
          tooltip: { trigger: 'item' },
          legend: { bottom: 0 },
          series: [
            {
              type: 'pie',
              radius: ['40%', '65%'],
              data: [
                { name: t('dicts.user_status.1'), value: active },
                { name: t('dicts.user_status.0'), value: users - active },
              ],
            },
          ],
        };
  const trendOption: ChartOption = {
    color: [color],
    tooltip: { trigger: 'axis' },
    grid: { left: 40, right: 16, top: 24, bottom: 32 },
    xAxis: { type: 'category', data: days },
    yAxis: { type: 'value', minInterval: 1 },
    series: [{ type: 'line', smooth: true, areaStyle: { opacity: 0.15 }, data: perDay }],
  };
  const signInsToday = signIns?.at(-1);
  const signInsOption: ChartOption | undefined = signIns && {
    color: [color, '#67c23a'],
    tooltip: { trigger: 'axis' },
    legend: { bottom: 0 },
    grid: { left: 40, right: 16, top: 24, bottom: 48 },
    xAxis: { type: 'category', data: signIns.map((entry) => dayjs(entry.day).format('MM-DD')) },
    yAxis: { type: 'value', minInterval: 1 },
    series: [
      {
        name: t('admin.workbench.signInCount'),
        type: 'bar',
        barMaxWidth: 28,
        data: signIns.map((entry) => entry.signIns),
      },
      {
        name: t('admin.workbench.signInUsers'),
        type: 'line',
        smooth: true,
        data: signIns.map((entry) => entry.users),
      },
    ],
  };

  return (
    <div className="admin-workbench" data-testid="workbench">
      <Card className="admin-welcome">
        <h2>{t('admin.workbench.welcome', { name: user?.nickname || user?.username || '' })}</h2>
        <p className="admin-muted">{user?.orgName}</p>
      </Card>
      <Row gutter={[16, 16]}>
        {taskCounts &&
          (['assigneetask', 'candidatetask'] as const)
            .filter((code) => paths.has(`/${code}`))
            .map((code) => (
              <Col xs={12} lg={6} key={code}>
                <Link to={`/${code}`} className="admin-stat-link" data-testid={`workbench-${code}`}>
                  <Stat
                    title={title(code)}
                    value={code === 'assigneetask' ? taskCounts.personal : taskCounts.candidate}
                    icon={<ScheduleOutlined />}
                  />
                </Link>
              </Col>
            ))}
        {stats.map((stat) => (
          <Col xs={12} lg={6} key={stat.code}>
            <Stat title={title(stat.code)} value={stat.value} icon={stat.icon} />
          </Col>
        ))}
        {stats.length > 0 && (
          <Col xs={24} lg={canSeeUsers ? 12 : 24}>
            <Card title={t('admin.workbench.counts')}>
              <EChart option={countsOption} testId="chart-counts" />
            </Card>
          </Col>
        )}
        {canSeeUsers && (
          <Col xs={24} lg={12}>
            <Card title={t('admin.workbench.userStatus')}>
              <EChart option={statusOption} testId="chart-status" />
            </Card>
          </Col>
        )}
        {canSeeUsers && (
          <Col xs={24} lg={12}>
            <Card
              title={t('admin.workbench.signIns', { days: DAYS })}
              extra={
                signInsToday && (
                  <span className="admin-muted" data-testid="sign-ins-today">
                    {t('admin.workbench.signInsToday', {
                      signIns: signInsToday.signIns,
                      users: signInsToday.users,
                    })}
                  </span>
                )
              }
            >
              <EChart option={signInsOption} testId="chart-sign-ins" />
            </Card>
          </Col>
        )}
        {canSeeUsers && (
          <Col xs={24} lg={12}>
            <Card title={t('admin.workbench.newUsers', { days: DAYS })}>
              <EChart option={trendOption} testId="chart-trend" />
            </Card>
          </Col>
        )}
      </Row>
    </div>
  );
}
