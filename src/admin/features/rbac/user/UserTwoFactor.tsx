import { App, Button, Popconfirm, Tag } from 'antd';
import type { TwoFactorStatus } from '../../../../engine/api-types.js';
import type { RecordScreenProps } from '../../../entity/record-screen.js';
import { useT } from '../../../i18n.js';
import { useApiGet, useApiWrite, useCanButton } from '../../../lib/api.js';

/**
 * A user's two-factor sign-in, opened from the user list: its state, and the reset (README
 * "Two-factor sign-in"), which also ends every session of the user.
 */
export default function UserTwoFactor({ record, onClose }: RecordScreenProps) {
  const t = useT();
  const { message } = App.useApp();
  const can = useCanButton('sysuser');
  const userId = Number(record.id);
  const status = useApiGet<TwoFactorStatus>('/api/admin/sysuser/twoFactorStatus', { userId });
  const { send, isSending } = useApiWrite();

  const reset = async (): Promise<void> => {
    await send('post', '/api/admin/sysuser/resetTwoFactor', { userId });
    void message.success(t('admin.twoFactor.resetDone'));
    onClose(false);
  };

  return (
    <div data-testid="user-two-factor">
      <p>
        <strong>{String(record.username ?? '')}</strong>{' '}
        {status.data && (
          <Tag color={status.data.isEnabled ? 'green' : 'default'}>
            {t(status.data.isEnabled ? 'admin.twoFactor.userEnabled' : 'admin.twoFactor.userDisabled')}
          </Tag>
        )}
      </p>
      {status.data?.isRequired && <p>{t('admin.twoFactor.required')}</p>}
      <p className="admin-muted">{t('admin.twoFactor.resetHint')}</p>
      <Popconfirm title={t('admin.twoFactor.resetConfirm')} onConfirm={() => reset().catch(() => undefined)}>
        <Button danger disabled={!can('update')} loading={isSending} data-testid="user-two-factor-reset">
          {t('admin.twoFactor.reset')}
        </Button>
      </Popconfirm>
    </div>
  );
}
