import { LockOutlined, MobileOutlined, SafetyOutlined, UserOutlined } from '@ant-design/icons';
import { useLogin } from '@refinedev/core';
import { App, Button, Card, Dropdown, Form, Input, Tabs } from 'antd';
import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { LANGUAGES, type Language } from '../../../web/i18n.js';
import { productTitle, useT } from '../../i18n.js';
import { LogoMark } from '../../layout/Logo.js';
import { useApiCall } from '../../providers/api.js';
import {
  rememberSignInTenant,
  SIGN_IN,
  signInTenant,
  type SignInForm,
  type SignInType,
} from '../../providers/auth.js';
import { useApp } from '../../store.js';
import { SignInProviders } from '../oidc/SignInProviders.js';
import type { PendingStep } from './SecondStep.js';

// The second step (two-factor) is shown to few sign-ins: its code loads when one needs it.
const SecondStep = lazy(() => import('./SecondStep.js').then((module) => ({ default: module.SecondStep })));

const LANGUAGE_NAMES: Record<Language, string> = { zh: '简体中文', tw: '繁體中文', en: 'English' };
const SMS_WAIT_SECONDS = 60;

interface Values {
  username?: string;
  password?: string;
  mobile?: string;
  smsCaptcha?: string;
}

/** docs/product.md §1, §5: account-and-password and mobile-with-SMS-code sign-in; register and forgot-password links. */
export default function Login() {
  const t = useT();
  const app = useApp();
  const { message } = App.useApp();
  const [params] = useSearchParams();
  const [type, setType] = useState<SignInType>('account');
  const [form] = Form.useForm<Values>();
  const { mutate: login, isPending } = useLogin<SignInForm>();
  const [wait, setWait] = useState(0);
  const call = useApiCall();
  const [tenantCode, setTenantCode] = useState(() => signInTenant(params.get('tenant')));
  const [step, setStep] = useState<PendingStep>();

  useEffect(() => {
    document.title = `${t('admin.login.title')} - ${productTitle()}`;
  }, [t]);

  useEffect(() => {
    if (wait <= 0) return;
    const timer = setTimeout(() => setWait((seconds) => seconds - 1), 1000);
    return () => clearTimeout(timer);
  }, [wait]);

  const submit = (values: Values): void => {
    login({
      type,
      ...values,
      tenantCode,
      redirect: params.get('redirect') ?? undefined,
      onSecondStep: setStep,
    });
  };

  // back from an OpenID provider: its one-time ticket signs in like a password
  const signInWithTicket = useCallback(
    (ticket: string) =>
      login({ type: 'oidc', ticket, tenantCode, redirect: params.get('redirect') ?? undefined }),
    [login, tenantCode, params],
  );

  const sendCode = async (): Promise<void> => {
    const { mobile } = await form.validateFields(['mobile']);
    await call({
      method: 'get',
      url: '/api/account/captcha/getSmsCaptcha',
      query: { mobile: (mobile ?? '').trim(), tenantCode },
    });
    void message.success(t('admin.login.codeSent'));
    setWait(SMS_WAIT_SECONDS);
  };

  const required = (key: string) => [{ required: true, whitespace: true, message: t(key) }];

  return (
    <div className="admin-login">
      <Dropdown
        trigger={['click']}
        menu={{
          selectedKeys: [app.language],
          items: LANGUAGES.map((language) => ({ key: language, label: LANGUAGE_NAMES[language] })),
          onClick: ({ key }) => void app.setLanguage(key as Language),
        }}
      >
        <Button className="admin-login-language" type="text" data-testid="login-language">
          {LANGUAGE_NAMES[app.language]}
        </Button>
      </Dropdown>
      <Card className="admin-login-card">
        <div className="admin-login-head">
          <LogoMark size={40} />
          <h1>{t('admin.platformTitle')}</h1>
        </div>
        {step ? (
          <Suspense fallback={null}>
            <SecondStep
              step={step}
              redirect={params.get('redirect') ?? undefined}
              onBack={() => setStep(undefined)}
            />
          </Suspense>
        ) : (
          <>
            <Tabs
              activeKey={type}
              onChange={(key) => setType(key as SignInType)}
              centered
              items={[
                { key: 'account', label: t('admin.login.account') },
                { key: 'mobile', label: t('admin.login.mobile') },
              ]}
            />
            {tenantCode !== SIGN_IN.tenantCode && (
              <div className="admin-login-tenant" data-testid="login-tenant">
                <span>{t('admin.login.tenant', { tenant: tenantCode })}</span>
                <Button
                  type="link"
                  size="small"
                  onClick={() => {
                    rememberSignInTenant(SIGN_IN.tenantCode);
                    setTenantCode(SIGN_IN.tenantCode);
                  }}
                >
                  {t('admin.login.platformSignIn')}
                </Button>
              </div>
            )}
            <Form form={form} onFinish={submit} size="large" autoComplete="on" data-testid="login-form">
              {type === 'account' ? (
                <>
                  <Form.Item name="username" rules={required('admin.login.usernameRequired')}>
                    <Input
                      prefix={<UserOutlined />}
                      placeholder={t('admin.login.username')}
                      autoComplete="username"
                    />
                  </Form.Item>
                  <Form.Item
                    name="password"
                    rules={[{ required: true, message: t('admin.login.passwordRequired') }]}
                  >
                    <Input.Password
                      prefix={<LockOutlined />}
                      placeholder={t('admin.login.password')}
                      autoComplete="current-password"
                    />
                  </Form.Item>
                </>
              ) : (
                <>
                  <Form.Item
                    name="mobile"
                    rules={[
                      ...required('admin.login.mobileRequired'),
                      { pattern: /^\s*[0-9]{5,15}\s*$/, message: t('admin.login.mobileInvalid') },
                    ]}
                  >
                    <Input
                      prefix={<MobileOutlined />}
                      placeholder={t('admin.login.mobileNumber')}
                      autoComplete="tel"
                    />
                  </Form.Item>
                  <Form.Item name="smsCaptcha" rules={required('admin.login.codeRequired')}>
                    <Input
                      prefix={<SafetyOutlined />}
                      placeholder={t('admin.login.code')}
                      autoComplete="one-time-code"
                      suffix={
                        <Button
                          type="link"
                          size="small"
                          disabled={wait > 0}
                          onClick={() => void sendCode().catch(() => undefined)}
                        >
                          {wait > 0 ? t('admin.login.resendIn', { seconds: wait }) : t('admin.login.getCode')}
                        </Button>
                      }
                    />
                  </Form.Item>
                </>
              )}
              <Button type="primary" htmlType="submit" block loading={isPending} data-testid="login-submit">
                {t('admin.login.submit')}
              </Button>
            </Form>
            <SignInProviders
              tenantCode={tenantCode}
              redirect={params.get('redirect') ?? undefined}
              onTicket={signInWithTicket}
            />
            <div className="admin-login-links">
              <a href="/forgetPwd">{t('admin.login.forgotPassword')}</a>
              <a href="/register">{t('admin.login.register')}</a>
            </div>
          </>
        )}
      </Card>
    </div>
  );
}
