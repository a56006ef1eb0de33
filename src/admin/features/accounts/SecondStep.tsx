import { SafetyOutlined } from '@ant-design/icons';
import { useLogin } from '@refinedev/core';
import { App, Button, Form, Input } from 'antd';
import { useEffect, useState } from 'react';
import type { SecondStepAnswer, TwoFactorSetup } from '../../../engine/api-types.js';
import { useT } from '../../i18n.js';
import { useApiCall } from '../../providers/api.js';
import type { SignInForm } from '../../providers/auth.js';
import { RecoveryCodes, SetupView } from './TwoFactorParts.js';

export interface PendingStep {
  kind: SecondStepAnswer['second_step'];
  challengeToken: string;
}

/**
 * The second step of a sign-in (README "Two-factor sign-in"): a code of the authenticator or a
 * recovery code; or, when the tenant or a role requires two-factor of a user without it, the
 * enrolment (QR code, secret, a confirming code, the recovery codes shown once) before the session.
 */
export function SecondStep({
  step,
  redirect,
  onBack,
}: {
  step: PendingStep;
  redirect: string | undefined;
  onBack: () => void;
}) {
  const t = useT();
  const { modal } = App.useApp();
  const call = useApiCall();
  const { mutate: login, isPending } = useLogin<SignInForm>();
  const [setup, setSetup] = useState<TwoFactorSetup>();

  useEffect(() => {
    if (step.kind !== 'enrol') return;
    void call<TwoFactorSetup>({
      method: 'post',
      url: '/api/uaa/twoFactor/enrol',
      payload: { challengeToken: step.challengeToken },
    })
      .then(setSetup)
      .catch(() => undefined);
  }, [step, call]);

  const showCodes = (codes: string[]): Promise<void> =>
    new Promise((resolve) => {
      modal.info({
        title: t('admin.twoFactor.recoveryTitle'),
        content: <RecoveryCodes codes={codes} />,
        okText: t('admin.twoFactor.done'),
        width: 480,
        onOk: () => resolve(),
      });
    });

  const submit = ({ code }: { code: string }): void =>
    login({
      type: 'account',
      redirect,
      secondStep: { kind: step.kind, challengeToken: step.challengeToken, code },
      onRecoveryCodes: showCodes,
    });

  return (
    <div data-testid="login-second-step">
      <h2>{t(step.kind === 'enrol' ? 'admin.twoFactor.enrolTitle' : 'admin.twoFactor.stepTitle')}</h2>
      <p className="admin-muted">
        {t(step.kind === 'enrol' ? 'admin.twoFactor.enrolHint' : 'admin.twoFactor.stepHint')}
      </p>
      {step.kind === 'enrol' && setup && <SetupView setup={setup} />}
      <Form onFinish={submit} size="large" data-testid="login-code-form">
        <Form.Item
          name="code"
          rules={[{ required: true, whitespace: true, message: t('admin.twoFactor.codeRequired') }]}
        >
          <Input
            prefix={<SafetyOutlined />}
            placeholder={t(step.kind === 'enrol' ? 'admin.twoFactor.code' : 'admin.twoFactor.disableCode')}
            autoComplete="one-time-code"
            autoFocus
            data-testid="login-code"
          />
        </Form.Item>
        <Button type="primary" htmlType="submit" block loading={isPending} data-testid="login-code-submit">
          {t(step.kind === 'enrol' ? 'admin.twoFactor.confirm' : 'admin.twoFactor.stepSubmit')}
        </Button>
      </Form>
      <Button type="link" block onClick={onBack}>
        {t('admin.twoFactor.back')}
      </Button>
    </div>
  );
}
