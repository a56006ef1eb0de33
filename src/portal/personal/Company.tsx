import { usePortal } from '../context.js';
import type { PortalUser } from '../session.js';
import { Facts } from '../ui/detail.js';
import { isBuyer } from './role.js';

/** 我的企业: the organisation the account belongs to, and whom to ask to change it. */
export function CompanySection({ user }: { user: PortalUser }) {
  const { t, params } = usePortal();
  const rows: [string, string][] = [
    [t('personal.company.name'), user.orgName || user.name || t('personal.none')],
    [t('personal.company.identity'), t(isBuyer(user) ? 'header.buyer' : 'header.supplier')],
    [t('personal.company.account'), user.username],
    [t('personal.company.mobile'), user.mobile || t('personal.none')],
  ];
  return (
    <section className="card personal-card" data-testid="personal-company">
      <h2>{t('personal.company.title')}</h2>
      <Facts rows={rows} />
      <p className="muted">{t('personal.company.change', { hotline: params.hotline ?? '' })}</p>
    </section>
  );
}
