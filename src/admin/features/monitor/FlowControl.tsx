import { Button, Card, InputNumber, Space, Table, Tag } from 'antd';
import { useEffect, useState } from 'react';
import { routeTitle, useT } from '../../i18n.js';
import type { AppRoute } from '../../lib/menus.js';
import { useApiGet, useApiWrite } from '../../lib/api.js';
import { useSubmit } from '../../lib/screen-parts.js';
import { MONITOR_API, type FlowCounter, type RateLimitRule } from './monitor-api.js';

const LIVE_MS = 5_000;

const MAX_LIMIT = 1_000_000;

/** A whole number from 1 to MAX_LIMIT, else null: what the limit box may save. */
export function limitOf(value: number | null): number | null {
  return value !== null && Number.isInteger(value) && value >= 1 && value <= MAX_LIMIT ? value : null;
}

/**
 * One rule's limit, edited in place and saved as its param (every process applies it at once):
 * digits only, a value out of range (0 among them) says so under the box, and 恢复默认 drops the
 * param so the environment's limit (or its default) applies again.
 */
function LimitEditor({ rule, onSaved }: { rule: RateLimitRule; onSaved: () => void }) {
  const t = useT();
  const [value, setValue] = useState<number | null>(rule.limit);
  const { send, isSending } = useApiWrite();
  const submit = useSubmit();
  useEffect(() => setValue(rule.limit), [rule.limit]);
  const limit = limitOf(value);
  const isBad = value !== null && limit === null;
  const save = (next: number | null, message?: string) =>
    void submit(() => send('put', `${MONITOR_API}/flowcontrol/rule`, { name: rule.name, limit: next }), {
      after: onSaved,
      ...(message ? { success: message } : {}),
    });
  return (
    <Space direction="vertical" size={0}>
      <Space wrap>
        <InputNumber<number>
          precision={0}
          value={value}
          // Only digits reach the box: "abc" is not typed in at all.
          parser={(text) => Number((text ?? '').replace(/\D/g, ''))}
          onKeyDown={(event) => {
            if (event.key.length === 1 && !/\d/.test(event.key) && !event.ctrlKey && !event.metaKey)
              event.preventDefault();
          }}
          onChange={setValue}
          status={isBad ? 'error' : undefined}
          aria-label={t('monitor.flow.limit')}
          aria-invalid={isBad}
          data-testid={`limit-${rule.name}`}
        />
        <Button
          type="primary"
          loading={isSending}
          disabled={limit === null || limit === rule.limit}
          onClick={() => save(limit)}
          data-testid={`save-${rule.name}`}
        >
          {t('monitor.common.save')}
        </Button>
        {rule.source === 'param' && (
          <Button onClick={() => save(null, t('monitor.flow.resetDone'))} data-testid={`reset-${rule.name}`}>
            {t('monitor.flow.reset')}
          </Button>
        )}
      </Space>
      {isBad && (
        <span className="ant-form-item-explain-error" role="alert" data-testid={`limit-error-${rule.name}`}>
          {t('monitor.flow.limitRange')}
        </span>
      )}
    </Space>
  );
}

const seconds = (ms: number): number => Math.ceil(ms / 1000);

/** The live counters of every process: per client address, and failed sign-ins per user. */
function Counters({ rules }: { rules: RateLimitRule[] }) {
  const t = useT();
  const counters = useApiGet<FlowCounter[]>(`${MONITOR_API}/flowcontrol/counters`);
  const { refetch } = counters;
  useEffect(() => {
    const timer = setInterval(() => void refetch(), LIVE_MS);
    return () => clearInterval(timer);
  }, [refetch]);
  const limitOf = (rule: string): number | undefined => rules.find((row) => row.name === rule)?.limit;
  return (
    <Card size="small" className="monitor-section" title={t('monitor.flow.counters')}>
      <Table<FlowCounter>
        // a phone scrolls the table in its own box, columns unsqueezed (issue 39 point 9)
        scroll={{ x: 'max-content' }}
        rowKey={(row) => `${row.rule} ${row.scope} ${row.key}`}
        size="small"
        pagination={{ pageSize: 20 }}
        loading={counters.isLoading}
        dataSource={counters.data ?? []}
        data-testid="flow-counters"
        columns={[
          {
            title: t('monitor.flow.rule'),
            dataIndex: 'rule',
            width: 200,
            render: (rule: string) => t(`monitor.flow.rules.${rule}`, { defaultValue: rule }),
          },
          { title: t('monitor.flow.guards'), dataIndex: 'scope', ellipsis: true },
          {
            title: t('monitor.flow.counterKey'),
            dataIndex: 'key',
            render: (key: string) => <code>{key}</code>,
          },
          {
            title: t('monitor.flow.counterHits'),
            dataIndex: 'hits',
            width: 140,
            sorter: (a, b) => a.hits - b.hits,
            render: (hits: number, row) => {
              // The SMS interval counts no hits: its row is the wait before the next code.
              if (row.rule === 'smsInterval') return '—';
              const limit = limitOf(row.rule);
              return (
                <span>
                  {limit === undefined ? hits : `${hits} / ${limit}`}{' '}
                  {row.lockedMs > 0 && (
                    <Tag color="red">
                      {t('monitor.flow.locked')} {seconds(row.lockedMs)}s
                    </Tag>
                  )}
                </span>
              );
            },
          },
          {
            title: t('monitor.flow.counterLeft'),
            dataIndex: 'ttlMs',
            width: 140,
            render: (ms: number) => (ms > 0 ? seconds(ms) : '—'),
          },
        ]}
      />
    </Card>
  );
}

/**
 * Flow-control monitor (docs/product.md §2.3 monitor/flowcontrol): every rate-limit rule with its limit
 * (editable live), where the limit comes from, refusals of this process and refusals per minute
 * of every process, and the live counters per client address (and per user for failed sign-ins).
 */
export default function FlowControl({ route }: { route: AppRoute }) {
  const t = useT();
  const rules = useApiGet<RateLimitRule[]>(`${MONITOR_API}/flowcontrol/rules`);
  const { refetch } = rules;
  useEffect(() => {
    const timer = setInterval(() => void refetch(), LIVE_MS);
    return () => clearInterval(timer);
  }, [refetch]);
  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <Table<RateLimitRule>
        // a phone scrolls the table in its own box, columns unsqueezed (issue 39 point 9)
        scroll={{ x: 'max-content' }}
        rowKey="name"
        size="middle"
        pagination={false}
        loading={rules.isLoading}
        dataSource={rules.data ?? []}
        data-testid="flow-rules"
        columns={[
          {
            title: t('monitor.flow.rule'),
            dataIndex: 'name',
            render: (name: string) => t(`monitor.flow.rules.${name}`),
          },
          {
            title: t('monitor.flow.param'),
            dataIndex: 'param',
            render: (param: string) => <code>{param}</code>,
          },
          {
            title: t('monitor.flow.guards'),
            dataIndex: 'routes',
            render: (routes: string[]) => routes.join(', '),
          },
          {
            title: t('monitor.flow.limit'),
            key: 'limit',
            render: (_, rule) => (
              <Space direction="vertical" size={2}>
                <LimitEditor rule={rule} onSaved={() => void refetch()} />
                <span>
                  {t(`monitor.flow.unit.${rule.unit}`)}{' '}
                  <Tag color={rule.source === 'param' ? 'blue' : 'default'}>
                    {t(`monitor.flow.source.${rule.source}`)}
                  </Tag>
                </span>
              </Space>
            ),
          },
          { title: t('monitor.flow.rejections'), dataIndex: 'rejections', width: 120 },
          { title: t('monitor.flow.perMinute'), dataIndex: 'rejectionsPerMinute', width: 140 },
        ]}
      />
      <Counters rules={rules.data ?? []} />
    </Card>
  );
}
