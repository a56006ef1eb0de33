import type { TwoFactorSetup } from '../../engine/api-types.js';
import { usePortal } from '../context.js';

/** An enrolment's QR code to scan and its secret to type, for the sign-in step and 个人中心. */
export function TotpSetupView({ setup, secretTestId }: { setup: TwoFactorSetup; secretTestId: string }) {
  const { t } = usePortal();
  return (
    <div>
      <p>{t('twoFactor.scan')}</p>
      <img
        src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(setup.qrSvg)}`}
        width={180}
        height={180}
        alt={setup.otpauthUrl}
      />
      <p>
        {t('twoFactor.secret')}: <code data-testid={secretTestId}>{setup.secret}</code>
      </p>
    </div>
  );
}
