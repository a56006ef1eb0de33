import { Link } from 'react-router';
import { usePortal } from '../context.js';
import { QrCode } from '../ui/QrCode.js';
import { Icon } from '../ui/icons.js';

interface PartnerLink {
  name: string;
  url: string;
}

/** docs/product.md §1 footer: operator and registration notices, hotline and mailbox, partner links, two QR codes. */
export function Footer() {
  const { t, list, params } = usePortal();
  const links = list<PartnerLink>('footer.links');
  const year = new Date().getFullYear();
  return (
    <footer className="portal-footer">
      <div className="container footer-grid">
        <section className="footer-col">
          <h3>{t('footer.aboutTitle')}</h3>
          <Link to="/aboutus">{t('tabs.aboutus')}</Link>
          <Link to="/service">{t('routes.service')}</Link>
          <Link to="/biddingAgreement">{t('routes.biddingAgreement')}</Link>
        </section>
        <section className="footer-col">
          <h3>{t('footer.guideTitle')}</h3>
          <Link to="/novice">{t('routes.novice')}</Link>
          <Link to="/buysettlein">{t('routes.buysettlein')}</Link>
          <Link to="/sellsettlein">{t('routes.sellsettlein')}</Link>
          <Link to="/comproblem">{t('routes.comproblem')}</Link>
        </section>
        <section className="footer-col footer-contact">
          <h3>{t('footer.contactTitle')}</h3>
          <p>
            <Icon name="phone" size={16} /> {t('footer.hotline')}
            <strong className="footer-hotline" data-testid="footer-hotline">
              {params.hotline}
            </strong>
          </p>
          <p>
            <Icon name="mail" size={16} /> {t('footer.mailbox')}
            <a href={`mailto:${params.mailbox ?? ''}`} data-testid="footer-mailbox">
              {params.mailbox}
            </a>
          </p>
          <p className="muted">{t('footer.serviceHours')}</p>
        </section>
        <section className="footer-qr">
          <figure>
            <QrCode param="buyerAccountUrl" label={t('footer.qrBuyer')} />
            <figcaption>{t('footer.qrBuyer')}</figcaption>
          </figure>
          <figure>
            <QrCode param="supplierAccountUrl" label={t('footer.qrSupplier')} />
            <figcaption>{t('footer.qrSupplier')}</figcaption>
          </figure>
        </section>
      </div>
      <div className="container footer-links">
        <span className="footer-links-title">{t('footer.linksTitle')}</span>
        {links.map((link) => (
          <a key={link.url} href={link.url} target="_blank" rel="noopener noreferrer">
            {link.name}
          </a>
        ))}
      </div>
      <div className="footer-bottom">
        <div className="container">
          <p>
            {t('footer.operator', { operator: params.companyOperator || t('footer.defaultOperator') })} · ©
            {year} {t('footer.rights')}
          </p>
          <p>
            {params.icpRegistration && (
              <a href="https://beian.miit.gov.cn/" target="_blank" rel="noopener noreferrer">
                {params.icpRegistration}
              </a>
            )}
            {params.publicSecurityRecord && <span> · {params.publicSecurityRecord}</span>}
            <span> · {t('footer.notice')}</span>
          </p>
        </div>
      </div>
    </footer>
  );
}
