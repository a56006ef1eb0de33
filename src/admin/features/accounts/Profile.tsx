import { LockOutlined, MailOutlined, MobileOutlined, UserOutlined } from '@ant-design/icons';
import { useGetIdentity, useInvalidateAuthStore } from '@refinedev/core';
import { App, Avatar, Button, Card, Col, Form, Input, Row, Space, Tag, type FormRule } from 'antd';
import { useEffect, useState, type ReactNode } from 'react';
import {
  fieldMessage,
  OWN_PROFILE_FIELDS,
  type FieldDef,
  type OwnDetail,
  type OwnProfileField,
} from '../../../engine/index.js';
import { useEntity } from '../../entity/resources.js';
import { useT, type Translate } from '../../i18n.js';
import { ChangePasswordDialog } from '../../layout/ChangePasswordDialog.js';
import { DEFAULT_AVATAR } from '../../layout/Logo.js';
import { useApiCall } from '../../providers/api.js';
import { forgetUser, SIGN_IN, type SysUser } from '../../providers/auth.js';
import { errorMessage, fieldMessages } from '../../providers/data.js';
import { TwoFactorCard } from './TwoFactorCard.js';
import { OidcLinks } from '../oidc/OidcLinks.js';

type Values = { [K in OwnProfileField]: string } & { smsCaptcha?: string };

const SMS_WAIT_SECONDS = 60;

/**
 * antd rules from the user schema's own rules for a field (the same ones the server checks),
 * worded as the generated forms word them (请输入昵称, 请输入正确的邮箱地址).
 */
function rulesOf(t: Translate, field: FieldDef | undefined, title: string): FormRule[] {
  const rules: FormRule[] = [];
  const schema = field?.schema;
  const say = (keyword: string, params: Record<string, unknown> = {}): string => {
    const message = fieldMessage(keyword, params, { title, entry: 'input' });
    return t(message.key, message.params);
  };
  if (field?.isRequired) rules.push({ required: true, whitespace: true, message: say('required') });
  if (schema?.minLength)
    rules.push({ min: schema.minLength, message: say('minLength', { limit: schema.minLength }) });
  if (schema?.maxLength)
    rules.push({ max: schema.maxLength, message: say('maxLength', { limit: schema.maxLength }) });
  if (schema?.pattern) rules.push({ pattern: new RegExp(schema.pattern), message: say('pattern') });
  if (schema?.format === 'email') rules.push({ type: 'email', message: say('format', { format: 'email' }) });
  return rules;
}

const formValues = (detail: OwnDetail): Values =>
  Object.fromEntries(OWN_PROFILE_FIELDS.map((name) => [name, detail[name] ?? ''])) as Values;

function AvatarImage({ src, size }: { src: string | null | undefined; size: number }) {
  const [failed, setFailed] = useState(false);
  useEffect(() => setFailed(false), [src]);
  return (
    <Avatar
      size={size}
      src={!failed && src ? src : DEFAULT_AVATAR}
      // decorative: the name is beside it, the address in the field next to the preview (WCAG 1.1.1)
      alt=""
      data-testid="profile-avatar"
      onError={() => {
        // docs/product.md §8: a broken avatar falls back to the default image.
        setFailed(true);
        return false;
      }}
    />
  );
}

/** /profile/index: the signed-in user's own details, editable; a mobile change needs an SMS code. */
export default function Profile() {
  const t = useT();
  const { message } = App.useApp();
  const { data: user } = useGetIdentity<SysUser>();
  const invalidateIdentity = useInvalidateAuthStore();
  const [form] = Form.useForm<Values>();
  const [detail, setDetail] = useState<OwnDetail>();
  const [isSaving, setSaving] = useState(false);
  const [isPasswordOpen, setPasswordOpen] = useState(false);
  const [wait, setWait] = useState(0);
  const userEntity = useEntity('sysuser');
  const mobile = Form.useWatch('mobile', form);
  const avatar = Form.useWatch('avatar', form);
  const isMobileChanged = detail !== undefined && (mobile ?? '').trim() !== (detail.mobile ?? '');
  const call = useApiCall();

  const load = async (): Promise<void> => {
    const own = await call<OwnDetail>({
      method: 'get',
      url: '/api/account/sysuserdetail/querySysUserDetail',
    });
    setDetail(own);
    form.setFieldsValue({ ...formValues(own), smsCaptcha: '' });
  };

  useEffect(() => {
    void load().catch(() => undefined);
    // Loaded once per visit; a save reloads it.
  }, []);

  useEffect(() => {
    if (wait <= 0) return;
    const timer = setTimeout(() => setWait((seconds) => seconds - 1), 1000);
    return () => clearTimeout(timer);
  }, [wait]);

  const sendCode = async (): Promise<void> => {
    const { mobile: number } = await form.validateFields(['mobile']);
    await call({
      method: 'get',
      url: '/api/account/captcha/getSmsCaptcha',
      query: { mobile: number.trim(), tenantCode: user?.tenantCode ?? SIGN_IN.tenantCode },
    });
    void message.success(t('admin.login.codeSent'));
    setWait(SMS_WAIT_SECONDS);
  };

  const save = async (values: Values): Promise<void> => {
    if (!detail) return;
    const body: Record<string, unknown> = { id: detail.id, version: detail.version };
    for (const name of OWN_PROFILE_FIELDS) {
      const value = (values[name] ?? '').trim();
      if (value !== (detail[name] ?? '')) body[name] = value === '' ? null : value;
    }
    if (isMobileChanged) body.smsCaptcha = (values.smsCaptcha ?? '').trim();
    setSaving(true);
    try {
      await call({
        method: 'put',
        url: '/api/account/sysuserdetail/updateSysUserDetail',
        payload: body,
        isSilent: true,
      });
      void message.success(t('admin.profile.saved'));
      setWait(0);
      forgetUser();
      await Promise.all([invalidateIdentity(), load()]);
    } catch (error) {
      // Field errors next to their fields (a wrong SMS code, a mobile number already taken).
      const known = new Set<string>([...OWN_PROFILE_FIELDS, 'smsCaptcha']);
      form.setFields(
        Object.entries(fieldMessages(error))
          .filter(([name]) => known.has(name))
          .map(([name, errors]) => ({ name: name as keyof Values, errors })),
      );
      void message.error(errorMessage(error));
    } finally {
      setSaving(false);
    }
  };

  const field = (name: string): string => t(`entities.sysuser.fields.${name}`);
  const item = (name: OwnProfileField, input: ReactNode) => (
    <Form.Item
      name={name}
      label={field(name)}
      rules={rulesOf(t, userEntity?.fieldsByName.get(name), field(name))}
    >
      {input}
    </Form.Item>
  );

  return (
    <Row gutter={[16, 16]} className="admin-profile" data-testid="profile">
      <Col xs={24} lg={8}>
        <Card title={t('menus.profile')} data-testid="page-title">
          <div className="admin-profile-card">
            <AvatarImage src={detail?.avatar ?? user?.avatar} size={96} />
            <h3 data-testid="profile-name">{detail?.nickname || user?.nickname || user?.username}</h3>
            <p className="admin-muted">{user?.orgName}</p>
          </div>
          <ul className="admin-profile-facts">
            <li>
              <UserOutlined /> <span>{field('username')}</span>
              <strong>{user?.username}</strong>
            </li>
            <li>
              <MobileOutlined /> <span>{field('mobile')}</span>
              <strong>{detail?.mobile ?? user?.mobile}</strong>
            </li>
            <li>
              <MailOutlined /> <span>{field('email')}</span>
              <strong>{detail?.email ?? user?.email}</strong>
            </li>
            <li>
              <span>{field('roleId')}</span>
              <span>
                {user?.roles.map((role) => (
                  <Tag key={role}>{t(`roles.${role}.name`, { defaultValue: role })}</Tag>
                ))}
              </span>
            </li>
          </ul>
          <Button
            block
            icon={<LockOutlined />}
            onClick={() => setPasswordOpen(true)}
            data-testid="profile-password"
          >
            {t('admin.navbar.changePassword')}
          </Button>
        </Card>
        <div className="admin-profile-two-factor">
          <TwoFactorCard />
        </div>
        <OidcLinks />
      </Col>
      <Col xs={24} lg={16}>
        <Card title={t('admin.profile.details')}>
          <Form
            form={form}
            layout="vertical"
            onFinish={(values) => void save(values)}
            disabled={!detail}
            data-testid="profile-form"
          >
            <Row gutter={16}>
              <Col xs={24} md={12}>
                {item('nickname', <Input autoComplete="nickname" />)}
              </Col>
              <Col xs={24} md={12}>
                {item('email', <Input autoComplete="email" />)}
              </Col>
              <Col xs={24} md={12}>
                {item('mobile', <Input autoComplete="tel" />)}
              </Col>
              {isMobileChanged && (
                <Col xs={24} md={12}>
                  <Form.Item
                    name="smsCaptcha"
                    label={t('admin.login.code')}
                    extra={t('admin.profile.mobileNeedsCode')}
                    rules={[{ required: true, whitespace: true, message: t('admin.login.codeRequired') }]}
                  >
                    <Input
                      autoComplete="one-time-code"
                      data-testid="profile-sms"
                      suffix={
                        <Button
                          type="link"
                          size="small"
                          disabled={wait > 0}
                          onClick={() => void sendCode().catch(() => undefined)}
                          data-testid="profile-send-code"
                        >
                          {wait > 0 ? t('admin.login.resendIn', { seconds: wait }) : t('admin.login.getCode')}
                        </Button>
                      }
                    />
                  </Form.Item>
                </Col>
              )}
              <Col xs={24} md={12}>
                {item('phone', <Input autoComplete="tel-national" />)}
              </Col>
              <Col xs={24} md={12}>
                {item('geographic', <Input />)}
              </Col>
              <Col xs={24} md={12}>
                {item('address', <Input autoComplete="street-address" />)}
              </Col>
              <Col xs={24}>{item('profile', <Input.TextArea rows={3} showCount maxLength={2000} />)}</Col>
              <Col xs={24}>
                <Form.Item label={field('avatar')} extra={t('admin.profile.avatarHint')}>
                  <Space align="center" className="admin-profile-avatar-field">
                    <AvatarImage src={avatar} size={48} />
                    <Form.Item
                      name="avatar"
                      noStyle
                      rules={rulesOf(t, userEntity?.fieldsByName.get('avatar'), field('avatar'))}
                    >
                      <Input placeholder="https://" className="admin-profile-avatar-input" />
                    </Form.Item>
                    <Button onClick={() => form.setFieldValue('avatar', '')}>
                      {t('admin.profile.defaultAvatar')}
                    </Button>
                  </Space>
                </Form.Item>
              </Col>
            </Row>
            <Space>
              <Button type="primary" htmlType="submit" loading={isSaving} data-testid="profile-save">
                {t('admin.profile.save')}
              </Button>
              <Button
                onClick={() => detail && form.setFieldsValue({ ...formValues(detail), smsCaptcha: '' })}
              >
                {t('admin.profile.reset')}
              </Button>
            </Space>
          </Form>
        </Card>
      </Col>
      <ChangePasswordDialog open={isPasswordOpen} onClose={() => setPasswordOpen(false)} />
    </Row>
  );
}
