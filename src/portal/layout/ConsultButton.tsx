import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { usePortal } from '../context.js';
import { Icon } from '../ui/icons.js';
import { QrCode } from '../ui/QrCode.js';
import { consultUrl, openConsultWidget } from '../../web/consult.js';

/**
 * 在线咨询 on every screen (docs/product.md §1). With a widget configured it opens the widget with the
 * visitor's identity; without one, a small panel with the hotline, mailbox and QR code, so a
 * visitor half-way through a form is not sent away from it.
 */
export function ConsultButton() {
  const { t, params, user } = usePortal();
  const [isOpen, setIsOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!isOpen) return;
    const closeOutside = (event: MouseEvent): void => {
      if (!box.current?.contains(event.target as Node)) setIsOpen(false);
    };
    const closeOnEscape = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') setIsOpen(false);
    };
    document.addEventListener('mousedown', closeOutside);
    document.addEventListener('keydown', closeOnEscape);
    return () => {
      document.removeEventListener('mousedown', closeOutside);
      document.removeEventListener('keydown', closeOnEscape);
    };
  }, [isOpen]);
  const open = (): void => {
    if (params.customerServiceUrl) {
      openConsultWidget(
        consultUrl(params.customerServiceUrl, params.customerServiceParams, user, window.location.origin),
      );
      return;
    }
    setIsOpen(!isOpen);
  };
  return (
    <div className="consult" ref={box}>
      <button
        type="button"
        className="consult-button"
        data-testid="consult-button"
        aria-expanded={params.customerServiceUrl ? undefined : isOpen}
        aria-controls={params.customerServiceUrl ? undefined : 'consult-panel'}
        onClick={open}
      >
        <Icon name="chat" size={20} />
        <span>{t('consult')}</span>
      </button>
      {isOpen && (
        <section
          id="consult-panel"
          className="consult-panel"
          data-testid="consult-panel"
          aria-label={t('consultPanel.title')}
        >
          <header>
            <strong>{t('consultPanel.title')}</strong>
            <button
              type="button"
              className="icon-btn"
              aria-label={t('consultPanel.close')}
              onClick={() => setIsOpen(false)}
            >
              <Icon name="close" size={16} />
            </button>
          </header>
          <p className="muted">{t('consultPanel.text')}</p>
          {params.hotline && (
            <p>
              <span className="label">
                <Icon name="phone" size={16} /> {t('footer.hotline')}
              </span>
              <a href={`tel:${params.hotline}`} data-testid="consult-hotline">
                {params.hotline}
              </a>
            </p>
          )}
          {params.mailbox && (
            <p>
              <span className="label">
                <Icon name="mail" size={16} /> {t('footer.mailbox')}
              </span>
              <a href={`mailto:${params.mailbox}`} data-testid="consult-mailbox">
                {params.mailbox}
              </a>
            </p>
          )}
          <p className="muted">{t('footer.serviceHours')}</p>
          <figure>
            <QrCode param="buyerAccountUrl" size={104} label={t('consultPanel.qr')} isLazy={false} />
            <figcaption>{t('consultPanel.qr')}</figcaption>
          </figure>
          <Link to="/contactus" onClick={() => setIsOpen(false)}>
            {t('side.moreContact')}
          </Link>
        </section>
      )}
    </div>
  );
}
