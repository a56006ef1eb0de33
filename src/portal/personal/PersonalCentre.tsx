import { useEffect } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { usePortal } from '../context.js';
import { PERSONAL_PATH } from '../routes.js';
import { logout, type PortalUser } from '../session.js';
import { Breadcrumb, PageBanner, SkeletonLines } from '../ui/common.js';
import { portalHome } from '../../web/session.js';
import { AccountSection } from './Account.js';
import { CompanySection } from './Company.js';
import { NotificationsSection } from './Notifications.js';
import { PurchasesSection } from './Purchases.js';
import { isBuyer } from './role.js';

type Section = 'account' | 'company' | 'notifications' | 'purchases';

function sectionsOf(user: PortalUser): Section[] {
  return isBuyer(user)
    ? ['account', 'company', 'notifications', 'purchases']
    : ['account', 'company', 'notifications'];
}

/**
 * The portal's personal centre, for sites that have not configured buyer and supplier programs
 * of their own (params buyerProgramUrl, supplierProgramUrl): the account, the company, the
 * notifications and, for buyers, their purchase notices. Without a valid sign-in the visitor is
 * logged out (docs/product.md §2.2), landing on the home page with this page as the redirect.
 */
export default function PersonalCentre() {
  const { t, home, user, isUserKnown } = usePortal();
  const { section } = useParams();
  const { pathname } = useLocation();
  useEffect(() => {
    if (isUserKnown && !user) void logout(portalHome(pathname));
  }, [isUserKnown, user, pathname]);
  if (!user)
    return (
      <div className="container personal">
        <SkeletonLines count={8} />
      </div>
    );
  const sections = sectionsOf(user);
  const current = sections.find((item) => item === section) ?? 'account';
  return (
    <div className="personal">
      <PageBanner
        title={t('personal.title')}
        subtitle={t('personal.welcome', { name: user.zname || user.username })}
      />
      <div className="container">
        <Breadcrumb items={[{ label: t('tabs.home'), to: home }, { label: t('personal.title') }]} />
        <div className="personal-layout">
          <nav className="card personal-nav" aria-label={t('personal.title')}>
            {sections.map((item) => (
              <Link
                key={item}
                to={`${PERSONAL_PATH}/${item}`}
                className={item === current ? 'is-active' : undefined}
                aria-current={item === current ? 'page' : undefined}
                data-testid={`personal-nav-${item}`}
              >
                {t(`personal.sections.${item}`)}
              </Link>
            ))}
          </nav>
          <div className="personal-main">
            {current === 'account' && <AccountSection user={user} />}
            {current === 'company' && <CompanySection user={user} />}
            {current === 'notifications' && <NotificationsSection />}
            {current === 'purchases' && <PurchasesSection user={user} />}
          </div>
        </div>
      </div>
    </div>
  );
}
