import { useGetIdentity } from '@refinedev/core';
import { App, Form, Input, Modal } from 'antd';
import { useState } from 'react';
import { useT } from '../i18n.js';
import { useApiCall } from '../providers/api.js';
import type { SysUser } from '../providers/auth.js';
import type { RenewedSession } from '../../engine/api-types.js';
import { setToken } from '../../web/session.js';
import { errorText } from '../providers/data.js';

interface PasswordForm {
  oldPassword: string;
  newPassword: string;
  confirmPassword: string;
}

export const PASSWORD_MAX_LENGTH = 31;
const NOTICE_SECONDS = 2;

/**
 * docs/product.md §5, §7: old, new and confirm required, at most 31 characters, new and confirm equal;
 * PUT /api/account/sysuserdetail/updatePassword (query password, newPassword, id); a success
 * closes with a 2 s success notice, a failure is a 2 s warning. The change ends every session of
 * the user, this page's too, and answers a fresh one: the page goes on with its token.
 */
export function ChangePasswordDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  const t = useT();
  const { message } = App.useApp();
  const [form] = Form.useForm<PasswordForm>();
  const [isSaving, setSaving] = useState(false);
  const { data: user } = useGetIdentity<SysUser>();
  const call = useApiCall();

  const submit = async (): Promise<void> => {
    const values = await form.validateFields();
    if (values.newPassword !== values.confirmPassword) {
      void message.warning(t('admin.password.inconsistent'), NOTICE_SECONDS);
      return;
    }
    setSaving(true);
    try {
      // Any answer but success (code 200) arrives as a failure.
      const renewed = await call<RenewedSession>({
        method: 'put',
        url: '/api/account/sysuserdetail/updatePassword',
        query: { password: values.oldPassword, newPassword: values.newPassword, id: user?.id },
        isSilent: true,
      });
      setToken(renewed.access_token);
      void message.success(t('admin.password.changed'), NOTICE_SECONDS);
      form.resetFields();
      onClose();
    } catch (error) {
      // A field error (the current password is wrong) says more than the envelope's message.
      void message.warning(errorText(error), NOTICE_SECONDS);
    } finally {
      setSaving(false);
    }
  };

  const fields: [keyof PasswordForm, string, string, string][] = [
    ['oldPassword', t('admin.password.old'), 'admin.password.oldRequired', 'current-password'],
    ['newPassword', t('admin.password.new'), 'admin.password.newRequired', 'new-password'],
    ['confirmPassword', t('admin.password.confirm'), 'admin.password.confirmRequired', 'new-password'],
  ];
  return (
    <Modal
      title={t('admin.password.title')}
      open={open}
      onCancel={onClose}
      onOk={() => void submit().catch(() => undefined)}
      confirmLoading={isSaving}
      okText={t('admin.common.confirm')}
      cancelText={t('admin.common.cancel')}
      destroyOnHidden
      width={440}
    >
      <Form form={form} layout="vertical" preserve={false} data-testid="change-password-form">
        {fields.map(([name, label, requiredKey, autoComplete]) => (
          <Form.Item
            key={name}
            name={name}
            label={label}
            rules={[{ required: true, message: t(requiredKey) }]}
          >
            <Input.Password maxLength={PASSWORD_MAX_LENGTH} autoComplete={autoComplete} />
          </Form.Item>
        ))}
      </Form>
    </Modal>
  );
}
