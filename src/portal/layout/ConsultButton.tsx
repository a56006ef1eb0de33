import { useNavigate } from 'react-router';
import { usePortal } from '../context.js';
import { Icon } from '../ui/icons.js';

/** The customer-service widget's address with the visitor's identity (SPEC §1: id, name or display name, mobile). */
export function consultUrl(
  base: string,
  user: { id: number; name: string; zname: string; mobile: string | null } | null,
): string {
  const url = new URL(base, window.location.origin);
  if (user) {
    url.searchParams.set('userId', String(user.id));
    url.searchParams.set('name', user.name || user.zname);
    url.searchParams.set('mobile', user.mobile ?? '');
  }
  return url.toString();
}

/** 在线咨询 on every screen; without a configured widget it opens the contact details. */
export function ConsultButton() {
  const { t, params, user } = usePortal();
  const navigate = useNavigate();
  const open = (): void => {
    if (!params.customerServiceUrl) {
      void navigate('/contactus');
      return;
    }
    window.open(
      consultUrl(params.customerServiceUrl, user),
      'ecobid-consult',
      'noopener,width=420,height=640',
    );
  };
  return (
    <button type="button" className="consult-button" data-testid="consult-button" onClick={open}>
      <Icon name="chat" size={20} />
      <span>{t('consult')}</span>
    </button>
  );
}
