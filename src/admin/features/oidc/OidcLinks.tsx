import { LinkOutlined } from '@ant-design/icons';
import { App, Button, Card, List, Popconfirm, Tag } from 'antd';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import type { OidcLinkView } from '../../../engine/api-types.js';
import { formatDateTime } from '../../../web/format.js';
import { useT } from '../../i18n.js';
import { useApiGet } from '../../lib/api.js';
import { useApiCall } from '../../providers/api.js';
import { errorText } from '../../providers/data.js';

/**
 * 个人中心's linked accounts: each OpenID Connect provider of the tenant, linked to the user or
 * not. Linking leaves for the provider and comes back here (oidcLinked or oidcError).
 */
export function OidcLinks() {
  const t = useT();
  const { message } = App.useApp();
  const call = useApiCall();
  const links = useApiGet<OidcLinkView[]>('/api/oidc/links');
  const [params, setParams] = useSearchParams();
  const [busy, setBusy] = useState<number | undefined>();
  const label = (field: string): string => t(`oidc.${field}`);

  useEffect(() => {
    const linked = params.get('oidcLinked');
    const error = params.get('oidcError');
    if (!linked && !error) return;
    if (linked) void message.success(t('oidc.linkDone'));
    if (error)
      void message.error(
        /^[A-Za-z.]{1,64}$/.test(error) ? t(`errors.${error}`) : t('errors.oidc.answerInvalid'),
      );
    const rest = new URLSearchParams(params);
    rest.delete('oidcLinked');
    rest.delete('oidcError');
    setParams(rest, { replace: true });
  }, [params, setParams, message, t]);

  const link = async (providerId: number): Promise<void> => {
    setBusy(providerId);
    try {
      const { url } = await call<{ url: string }>({
        method: 'post',
        url: '/api/oidc/link',
        payload: { providerId, app: 'admin' },
        isSilent: true,
      });
      window.location.assign(url);
    } catch (error) {
      setBusy(undefined);
      void message.error(errorText(error));
    }
  };

  const unlink = async (providerId: number): Promise<void> => {
    try {
      await call({ method: 'post', url: '/api/oidc/unlink', payload: { providerId }, isSilent: true });
      void message.success(label('unlinkDone'));
      await links.refetch();
    } catch (error) {
      void message.error(errorText(error));
    }
  };

  if (!links.data || links.data.length === 0) return null;
  return (
    <Card title={label('links')} style={{ marginTop: 16 }} data-testid="profile-oidc">
      <p className="admin-muted">{label('linksIntro')}</p>
      <List<OidcLinkView>
        dataSource={links.data}
        renderItem={(item) => (
          <List.Item
            data-testid="profile-oidc-provider"
            actions={[
              item.isLinked ? (
                <Popconfirm
                  key="unlink"
                  title={label('unlinkConfirm')}
                  onConfirm={() => unlink(item.providerId)}
                  okText={t('admin.common.confirm')}
                  cancelText={t('admin.common.cancel')}
                >
                  <Button size="small" danger data-testid="profile-oidc-unlink">
                    {label('unlink')}
                  </Button>
                </Popconfirm>
              ) : (
                <Button
                  key="link"
                  size="small"
                  icon={<LinkOutlined />}
                  loading={busy === item.providerId}
                  onClick={() => void link(item.providerId)}
                  data-testid="profile-oidc-link"
                >
                  {label('link')}
                </Button>
              ),
            ]}
          >
            <List.Item.Meta
              title={item.name}
              description={item.linkedAt ? formatDateTime(item.linkedAt) : undefined}
            />
            <Tag color={item.isLinked ? 'green' : 'default'}>
              {item.isLinked ? label('linked') : label('notLinked')}
            </Tag>
          </List.Item>
        )}
      />
    </Card>
  );
}
