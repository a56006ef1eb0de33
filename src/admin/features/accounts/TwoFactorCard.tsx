import { App, Button, Card, Form, Input, Space, Tag } from 'antd';
import { useEffect, useState } from 'react';
import type { TwoFactorSetup, TwoFactorStatus } from '../../../engine/api-types.js';
import { useT } from '../../i18n.js';
import { useApiCall } from '../../providers/api.js';
import { RecoveryCodes, SetupView } from './TwoFactorParts.js';

const BASE = '/api/account/twoFactor';

/**
 * 个人中心's two-factor card: turn it on (QR code and secret, a confirming code, the recovery codes
 * shown once) or off (the password and a code).
 */
export function TwoFactorCard() {
  const t = useT();
  const { message } = App.useApp();
  const call = useApiCall();
  const [status, setStatus] = useState<TwoFactorStatus>();
  const [setup, setSetup] = useState<TwoFactorSetup>();
  const [codes, setCodes] = useState<string[]>();
  const [isBusy, setBusy] = useState(false);

  const load = async (): Promise<void> => {
    setStatus(await call<TwoFactorStatus>({ method: 'get', url: `${BASE}/status` }));
  };
  useEffect(() => {
    void load().catch(() => undefined);
    // once per visit; each change reloads it
  }, []);

  const run = async (work: () => Promise<void>): Promise<void> => {
    setBusy(true);
    try {
      await work();
    } catch {
      // the data provider has shown the server's message
    } finally {
      setBusy(false);
    }
  };

  const start = () =>
    run(async () => {
      setCodes(undefined);
      setSetup(await call<TwoFactorSetup>({ method: 'post', url: `${BASE}/setup` }));
    });

  const confirm = ({ code }: { code: string }) =>
    run(async () => {
      const done = await call<{ recoveryCodes: string[] }>({
        method: 'post',
        url: `${BASE}/enable`,
        payload: { code: code.trim() },
      });
      setSetup(undefined);
      setCodes(done.recoveryCodes);
      void message.success(t('admin.twoFactor.enabledDone'));
      await load();
    });

  const disable = ({ password, code }: { password: string; code: string }) =>
    run(async () => {
      await call({ method: 'post', url: `${BASE}/disable`, payload: { password, code: code.trim() } });
      void message.success(t('admin.twoFactor.disabledDone'));
      await load();
    });

  const required = (key: string) => [{ required: true, whitespace: true, message: t(key) }];

  return (
    <Card
      title={t('admin.twoFactor.title')}
      extra={
        status && (
          <Tag color={status.isEnabled ? 'green' : 'default'} data-testid="tf-state">
            {t(status.isEnabled ? 'admin.twoFactor.enabled' : 'admin.twoFactor.disabled')}
          </Tag>
        )
      }
      data-testid="tf-card"
    >
      <p className="admin-muted">{t('admin.twoFactor.intro')}</p>
      {status?.isRequired && !status.isEnabled && <p>{t('admin.twoFactor.required')}</p>}
      {codes && (
        <>
          <RecoveryCodes codes={codes} />
          <Button onClick={() => setCodes(undefined)}>{t('admin.twoFactor.done')}</Button>
        </>
      )}
      {status && !status.isEnabled && !setup && (
        <Button type="primary" onClick={() => void start()} loading={isBusy} data-testid="tf-enable">
          {t('admin.twoFactor.enable')}
        </Button>
      )}
      {setup && (
        <>
          <SetupView setup={setup} />
          <Form layout="inline" onFinish={(values) => void confirm(values)}>
            <Form.Item name="code" rules={required('admin.twoFactor.codeRequired')}>
              <Input
                placeholder={t('admin.twoFactor.code')}
                autoComplete="one-time-code"
                data-testid="tf-code"
              />
            </Form.Item>
            <Button type="primary" htmlType="submit" loading={isBusy} data-testid="tf-confirm">
              {t('admin.twoFactor.confirm')}
            </Button>
          </Form>
        </>
      )}
      {status?.isEnabled && !codes && (
        <>
          <p>
            {status.enabledAt &&
              t('admin.twoFactor.enabledAt', { time: new Date(status.enabledAt).toLocaleString() })}
            <br />
            {t('admin.twoFactor.recoveryLeft', { count: status.recoveryCodesLeft })}
          </p>
          <Form layout="vertical" onFinish={(values) => void disable(values)}>
            <Space wrap align="end">
              <Form.Item
                name="password"
                label={t('admin.twoFactor.password')}
                rules={[{ required: true, message: t('admin.twoFactor.passwordRequired') }]}
              >
                <Input.Password autoComplete="current-password" data-testid="tf-password" />
              </Form.Item>
              <Form.Item
                name="code"
                label={t('admin.twoFactor.disableCode')}
                rules={required('admin.twoFactor.codeRequired')}
              >
                <Input autoComplete="one-time-code" data-testid="tf-disable-code" />
              </Form.Item>
              <Form.Item>
                <Button danger htmlType="submit" loading={isBusy} data-testid="tf-disable">
                  {t('admin.twoFactor.disable')}
                </Button>
              </Form.Item>
            </Space>
          </Form>
        </>
      )}
    </Card>
  );
}
