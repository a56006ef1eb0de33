import { useEffect } from 'react';
import { Link, useLocation } from 'react-router';
import { usePortal } from '../context.js';
import { Icon } from '../ui/icons.js';
import { Breadcrumb, PageBanner } from '../ui/common.js';

/** The shape of a static page's text in locales (portal.pages.<page>.sections). */
interface Section {
  id?: string;
  title: string;
  paragraphs?: string[];
  items?: string[];
  qa?: { id: string; q: string; a: string }[];
}

const HASH_OFFSET = 40;

/** docs/product.md §2.2: /comproblem scrolls to the hash anchor with a 40 px offset. */
function useHashScroll(isEnabled: boolean): void {
  const { hash } = useLocation();
  useEffect(() => {
    if (!isEnabled || !hash) return;
    const target = document.getElementById(decodeURIComponent(hash.slice(1)));
    if (!target) return;
    const top = target.getBoundingClientRect().top + window.scrollY - HASH_OFFSET;
    window.scrollTo({ top, behavior: 'auto' });
    target.classList.add('is-target');
    const timer = setTimeout(() => target.classList.remove('is-target'), 2000);
    return () => clearTimeout(timer);
  }, [hash, isEnabled]);
}

function Sections({ sections }: { sections: Section[] }) {
  return (
    <>
      {sections.map((section, index) => (
        <section key={section.id ?? index} id={section.id} className="static-section">
          <h2>{section.title}</h2>
          {section.paragraphs?.map((text, position) => (
            <p key={position}>{text}</p>
          ))}
          {section.items && (
            <ol className="static-list">
              {section.items.map((text, position) => (
                <li key={position}>{text}</li>
              ))}
            </ol>
          )}
          {section.qa?.map((item) => (
            <div key={item.id} id={item.id} className="qa">
              <h3>
                <span className="qa-mark">Q</span>
                {item.q}
              </h3>
              <p>
                <span className="qa-mark qa-answer">A</span>
                {item.a}
              </p>
            </div>
          ))}
        </section>
      ))}
    </>
  );
}

function ContactCards() {
  const { t, params } = usePortal();
  return (
    <div className="contact-cards" data-testid="contact-cards">
      <div className="contact-card">
        <Icon name="phone" size={26} />
        <h3>{t('footer.hotline')}</h3>
        <a href={`tel:${params.hotline ?? ''}`}>{params.hotline}</a>
        <small>{t('footer.serviceHours')}</small>
      </div>
      <div className="contact-card">
        <Icon name="mail" size={26} />
        <h3>{t('footer.mailbox')}</h3>
        <a href={`mailto:${params.mailbox ?? ''}`}>{params.mailbox}</a>
        <small>{t('contact.mailHint')}</small>
      </div>
      <div className="contact-card">
        <Icon name="location" size={26} />
        <h3>{t('contact.addressTitle')}</h3>
        <span>{t('contact.address')}</span>
        <small>{params.companyOperator}</small>
      </div>
    </div>
  );
}

/** The help centre: the question groups of /comproblem, each question a link to its anchor. */
function HelpIndex() {
  const { t, list } = usePortal();
  const groups = list<Section>('pages.comproblem.sections');
  return (
    <div className="help-grid" data-testid="help-index">
      {groups.map((group) => (
        <div key={group.id} className="help-group">
          <h2>
            <Link to={`/comproblem#${group.id ?? ''}`}>{group.title}</Link>
          </h2>
          <ul>
            {(group.qa ?? []).map((item) => (
              <li key={item.id}>
                <Link to={`/comproblem#${item.id}`}>{item.q}</Link>
              </li>
            ))}
          </ul>
        </div>
      ))}
      <div className="help-group help-contact">
        <h2>{t('help.stillNeed')}</h2>
        <p>{t('help.stillNeedText')}</p>
        <Link to="/contactus" className="btn btn-primary">
          {t('tabs.contactus')}
        </Link>
      </div>
    </div>
  );
}

/** About us, service, help centre, contact, common problems, novice guide, bidding agreement and the sign-up information pages. */
export default function StaticPage({ page }: { page: string }) {
  const { t, list, home } = usePortal();
  useHashScroll(page === 'comproblem');
  const sections = list<Section>(`pages.${page}.sections`);
  const isHelp = page === 'coproblem';
  const isSignUp = page === 'buysettlein' || page === 'sellsettlein';
  return (
    <div className={`static-page static-${page}`} data-testid={`page-${page}`}>
      <PageBanner title={t(`routes.${page}`)} subtitle={t(`pages.${page}.subtitle`)}>
        {isSignUp && (
          <Link
            to={page === 'buysettlein' ? '/register?userType=1' : '/register?userType=2'}
            className="btn btn-light"
          >
            {t('pages.signUpNow')}
          </Link>
        )}
      </PageBanner>
      <div className="container">
        <Breadcrumb items={[{ label: t('tabs.home'), to: home }, { label: t(`routes.${page}`) }]} />
        <div className="card static-card">
          {page === 'contactus' && <ContactCards />}
          {isHelp ? <HelpIndex /> : <Sections sections={sections} />}
          {page === 'comproblem' && (
            <p className="muted">
              {t('help.stillNeedText')} <Link to="/contactus">{t('tabs.contactus')}</Link>
            </p>
          )}
        </div>
      </div>
    </div>
  );
}
