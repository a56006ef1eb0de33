import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import type { OidcProviderButton } from '../../engine/api-types.js';
import { apiGet, apiPost } from '../../web/http.js';
import { usePortal } from '../context.js';
import { chooseUserType, signInWithTicket, type UserType } from '../session.js';
import { FormAlert, serverMessage } from './forms.js';

const ERROR_KEYS = new Set([
  'unknownUser',
  'answerInvalid',
  'stateInvalid',
  'ticketInvalid',
  'linkedElsewhere',
  'providerFailed',
]);

/** The text of an oidcError a provider's flow came back with (an error key, never shown raw). */
export function oidcErrorText(t: (key: string) => string, error: string): string {
  const key = error.replace(/^oidc\./, '');
  return t(ERROR_KEYS.has(key) ? `oidc.errors.${key}` : 'oidc.errors.failed');
}

/**
 * The sign-in page's row of the tenant's OpenID Connect providers: a button leaves for the
 * provider (buyer or supplier as chosen on the page is remembered like a password sign-in's); back
 * from it, the page's oidcTicket signs in (then `onSignedIn`), an oidcError is said.
 */
export function SsoProviders({
  tenantCode,
  redirect,
  userType,
  onSignedIn,
}: {
  tenantCode: string;
  redirect: string | undefined;
  userType: UserType;
  onSignedIn: () => Promise<void>;
}) {
  const { t } = usePortal();
  const [params, setParams] = useSearchParams();
  const [providers, setProviders] = useState<OidcProviderButton[]>([]);
  const [problem, setProblem] = useState<string | undefined>();
  const ticketTaken = useRef(false);

  useEffect(() => {
    let isCurrent = true;
    apiGet<OidcProviderButton[]>('/api/oidc/providers', { tenantCode }, { silent: true })
      .then((found) => {
        if (isCurrent) setProviders(found);
      })
      .catch(() => undefined);
    return () => {
      isCurrent = false;
    };
  }, [tenantCode]);

  useEffect(() => {
    const ticket = params.get('oidcTicket');
    const error = params.get('oidcError');
    if (!ticket && !error) return;
    if (error) setProblem(oidcErrorText(t, error));
    if (ticket && !ticketTaken.current) {
      ticketTaken.current = true;
      signInWithTicket(ticket)
        .then(onSignedIn)
        .catch((failure: unknown) => setProblem(serverMessage(failure, t('oidc.errors.failed'))));
    }
    const rest = new URLSearchParams(params);
    rest.delete('oidcTicket');
    rest.delete('oidcError');
    setParams(rest, { replace: true });
  }, [params, setParams, onSignedIn, t]);

  const start = async (provider: OidcProviderButton): Promise<void> => {
    try {
      const { url } = await apiPost<{ url: string }>(
        '/api/oidc/start',
        { tenantCode, providerId: provider.id, app: 'portal', ...(redirect ? { redirect } : {}) },
        { silent: true },
      );
      chooseUserType(userType);
      window.location.assign(url);
    } catch (failure) {
      setProblem(serverMessage(failure, t('oidc.errors.failed')));
    }
  };

  if (providers.length === 0 && !problem) return null;
  return (
    <div className="auth-sso" data-testid="login-sso">
      <FormAlert message={problem} />
      {providers.length > 0 && <p className="auth-sso-title">{t('oidc.otherWays')}</p>}
      {providers.map((provider) => (
        <button
          key={provider.id}
          type="button"
          className="btn btn-block"
          onClick={() => void start(provider)}
          data-testid="login-sso-provider"
        >
          {t('oidc.signInWith', { name: provider.name })}
        </button>
      ))}
    </div>
  );
}
