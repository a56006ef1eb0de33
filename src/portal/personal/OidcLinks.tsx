import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import type { OidcLinkView } from '../../engine/api-types.js';
import { formatDateTime } from '../../web/format.js';
import { FormAlert, serverMessage } from '../auth/forms.js';
import { oidcErrorText } from '../auth/SsoProviders.js';
import { usePortal } from '../context.js';
import { personalApi } from './api.js';

interface Note {
  text: string;
  kind: 'error' | 'success';
}

/**
 * 我的账户's linked accounts (README "Single sign-on"): each OpenID Connect provider of the
 * tenant, linked to the user or not. Linking leaves for the provider and comes back to
 * /personal with oidcLinked or oidcError; unlinking asks first.
 */
export function OidcLinksCard() {
  const { t } = usePortal();
  const [links, setLinks] = useState<OidcLinkView[]>();
  const [note, setNote] = useState<Note>();
  const [busy, setBusy] = useState<number>();
  const [params, setParams] = useSearchParams();

  const load = (): Promise<void> => personalApi.oidcLinks().then(setLinks);
  useEffect(() => {
    void load().catch(() => undefined);
  }, []);

  useEffect(() => {
    const linked = params.get('oidcLinked');
    const error = params.get('oidcError');
    if (!linked && !error) return;
    setNote(
      error
        ? { text: oidcErrorText(t, error), kind: 'error' }
        : { text: t('oidc.linkDone'), kind: 'success' },
    );
    const rest = new URLSearchParams(params);
    rest.delete('oidcLinked');
    rest.delete('oidcError');
    setParams(rest, { replace: true });
  }, [params, setParams, t]);

  const link = async (providerId: number): Promise<void> => {
    setBusy(providerId);
    try {
      const { url } = await personalApi.oidcLink(providerId);
      window.location.assign(url);
    } catch (failure) {
      setBusy(undefined);
      setNote({ text: serverMessage(failure, t('oidc.errors.failed')), kind: 'error' });
    }
  };

  const unlink = async (item: OidcLinkView): Promise<void> => {
    if (!window.confirm(t('oidc.unlinkConfirm', { name: item.name }))) return;
    setBusy(item.providerId);
    try {
      await personalApi.oidcUnlink(item.providerId);
      setNote({ text: t('oidc.unlinkDone'), kind: 'success' });
      await load();
    } catch (failure) {
      setNote({ text: serverMessage(failure, t('oidc.errors.failed')), kind: 'error' });
    } finally {
      setBusy(undefined);
    }
  };

  if (!links || (links.length === 0 && !note)) return null;
  return (
    <section className="card personal-card" data-testid="personal-oidc">
      <h2>{t('oidc.links')}</h2>
      <p>{t('oidc.linksIntro')}</p>
      <FormAlert message={note?.text} kind={note?.kind} />
      <ul className="personal-links">
        {links.map((item) => (
          <li key={item.providerId} data-testid="personal-oidc-provider">
            <div className="personal-link-name">
              <strong>{item.name}</strong>
              <span className={item.isLinked ? 'tag' : 'tag tag-muted'} data-testid="personal-oidc-state">
                {t(item.isLinked ? 'oidc.linked' : 'oidc.notLinked')}
              </span>
              {item.linkedAt && <small>{t('oidc.linkedAt', { time: formatDateTime(item.linkedAt) })}</small>}
            </div>
            {item.isLinked ? (
              <button
                type="button"
                className="btn"
                disabled={busy === item.providerId}
                onClick={() => void unlink(item)}
                data-testid="personal-oidc-unlink"
              >
                {t('oidc.unlink')}
              </button>
            ) : (
              <button
                type="button"
                className="btn btn-primary"
                disabled={busy === item.providerId}
                onClick={() => void link(item.providerId)}
                data-testid="personal-oidc-link"
              >
                {t('oidc.link')}
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
