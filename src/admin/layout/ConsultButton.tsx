import { CloseOutlined, CustomerServiceOutlined, MailOutlined, PhoneOutlined } from '@ant-design/icons';
import { useGetIdentity } from '@refinedev/core';
import { Button, Card, FloatButton } from 'antd';
import { useEffect, useState } from 'react';
import { consultUrl, openConsultWidget } from '../../web/consult.js';
import { useT } from '../i18n.js';
import type { SysUser } from '../providers/auth.js';

interface ConsultParams {
  hotline?: string;
  mailbox?: string;
  customerServiceUrl?: string;
  customerServiceParams?: string;
}

let cached: Promise<ConsultParams> | undefined;
/**
 * The portal's public params (a plain request: no session needed), read once and only when the
 * button is first used; after a failure the panel shows without them and asks again next time.
 */
function loadParams(): Promise<ConsultParams> {
  const loading =
    cached ??
    fetch('/api/notification/home/params')
      .then(async (response) => ((await response.json()) as { data?: ConsultParams }).data ?? {})
      .catch((): ConsultParams => {
        cached = undefined;
        return {};
      });
  cached = loading;
  return loading;
}

/**
 * 在线咨询 in the back-office as on the portal (docs/product.md §1): the configured widget with the user's
 * identity, else a small panel with the hotline, mailbox and QR code.
 */
export function ConsultButton() {
  const t = useT();
  const { data: user } = useGetIdentity<SysUser>();
  const [panel, setPanel] = useState<ConsultParams>();
  useEffect(() => {
    if (!panel) return;
    const close = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') setPanel(undefined);
    };
    document.addEventListener('keydown', close);
    return () => document.removeEventListener('keydown', close);
  }, [panel]);
  const open = async (): Promise<void> => {
    if (panel) {
      setPanel(undefined);
      return;
    }
    const loaded = await loadParams();
    if (loaded.customerServiceUrl)
      openConsultWidget(
        consultUrl(
          loaded.customerServiceUrl,
          loaded.customerServiceParams,
          user ?? null,
          window.location.origin,
        ),
      );
    else setPanel(loaded);
  };
  return (
    <>
      <FloatButton
        icon={<CustomerServiceOutlined />}
        type="primary"
        // the open panel names itself; a tooltip over it would hide its last line
        tooltip={panel ? undefined : t('admin.consult.label')}
        aria-label={t('admin.consult.label')}
        data-testid="consult-button"
        style={{ insetInlineEnd: 24, insetBlockEnd: 24 }}
        onClick={() => void open()}
      />
      {panel && (
        <Card
          className="admin-consult-panel"
          data-testid="consult-panel"
          size="small"
          title={t('admin.consult.label')}
          extra={
            <Button
              type="text"
              size="small"
              icon={<CloseOutlined />}
              aria-label={t('admin.consult.close')}
              onClick={() => setPanel(undefined)}
            />
          }
          style={{ position: 'fixed', right: 24, bottom: 80, width: 260, zIndex: 1000 }}
        >
          <p>{t('admin.consult.text')}</p>
          {panel.hotline && (
            <p>
              <PhoneOutlined /> {t('admin.consult.hotline')}
              <a href={`tel:${panel.hotline}`}>{panel.hotline}</a>
            </p>
          )}
          {panel.mailbox && (
            <p>
              <MailOutlined /> {t('admin.consult.mailbox')}
              <a href={`mailto:${panel.mailbox}`}>{panel.mailbox}</a>
            </p>
          )}
          <figure style={{ margin: 0, textAlign: 'center' }}>
            <img
              src="/api/notification/home/qrcode?param=buyerAccountUrl"
              width={104}
              height={104}
              alt={t('admin.consult.qr')}
            />
            <figcaption>{t('admin.consult.qr')}</figcaption>
          </figure>
        </Card>
      )}
    </>
  );
}
