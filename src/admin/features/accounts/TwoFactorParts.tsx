import { Alert, Typography } from 'antd';
import type { TwoFactorSetup } from '../../../engine/api-types.js';
import { useT } from '../../i18n.js';

/** The QR code and the secret of an enrolment, for the authenticator app. */
export function SetupView({ setup }: { setup: TwoFactorSetup }) {
  const t = useT();
  return (
    <div className="admin-two-factor-setup" data-testid="tf-setup">
      <p>{t('admin.twoFactor.scan')}</p>
      <img
        src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(setup.qrSvg)}`}
        width={180}
        height={180}
        alt={setup.otpauthUrl}
        data-testid="tf-qr"
      />
      <p>
        {t('admin.twoFactor.secret')}:{' '}
        <Typography.Text code copyable data-testid="tf-secret">
          {setup.secret}
        </Typography.Text>
      </p>
    </div>
  );
}

/** The recovery codes, shown once after an enrolment. */
export function RecoveryCodes({ codes }: { codes: readonly string[] }) {
  const t = useT();
  return (
    <div data-testid="tf-recovery">
      <Alert type="warning" showIcon message={t('admin.twoFactor.recoveryHint')} />
      <ul className="admin-two-factor-codes">
        {codes.map((code) => (
          <li key={code}>
            <Typography.Text code>{code}</Typography.Text>
          </li>
        ))}
      </ul>
    </div>
  );
}
