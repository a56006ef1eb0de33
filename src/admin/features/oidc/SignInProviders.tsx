import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import type { OidcProviderButton } from '../../../engine/api-types.js';
import { useT } from '../../i18n.js';
import { useApiCall } from '../../providers/api.js';
import { errorText } from '../../providers/data.js';

// Its antd parts (divider, alert) load only for a tenant with providers or a provider's error.
const SignInProvidersView = lazy(() => import('./SignInProvidersView.js'));

/**
 * The sign-in page's row of the tenant's OpenID Connect providers. A button starts the flow
 * (the server keeps its state, nonce and PKCE verifier) and leaves for the provider; back from
 * it, the page's oidcTicket is handed to `onTicket` (the auth provider redeems it for the
 * session) and an oidcError is said.
 */
export function SignInProviders({
  tenantCode,
  redirect,
  onTicket,
}: {
  tenantCode: string;
  redirect: string | undefined;
  onTicket: (ticket: string) => void;
}) {
  const t = useT();
  const call = useApiCall();
  const [params, setParams] = useSearchParams();
  const [providers, setProviders] = useState<OidcProviderButton[]>([]);
  const [problem, setProblem] = useState<string | undefined>();
  const [leaving, setLeaving] = useState<number | undefined>();
  const ticketTaken = useRef(false);

  useEffect(() => {
    let isCurrent = true;
    call<OidcProviderButton[]>({
      method: 'get',
      url: '/api/oidc/providers',
      query: { tenantCode },
      isSilent: true,
    })
      .then((found) => {
        if (isCurrent) setProviders(found);
      })
      .catch(() => undefined);
    return () => {
      isCurrent = false;
    };
  }, [call, tenantCode]);

  useEffect(() => {
    const ticket = params.get('oidcTicket');
    const error = params.get('oidcError');
    if (!ticket && !error) return;
    // the server names its error by its message key (errors.<key>)
    if (error)
      setProblem(/^[A-Za-z.]{1,64}$/.test(error) ? t(`errors.${error}`) : t('errors.oidc.answerInvalid'));
    if (ticket && !ticketTaken.current) {
      ticketTaken.current = true;
      onTicket(ticket);
    }
    // the ticket is good once: no reload or bookmark keeps it
    const rest = new URLSearchParams(params);
    rest.delete('oidcTicket');
    rest.delete('oidcError');
    setParams(rest, { replace: true });
  }, [params, setParams, onTicket, t]);

  const start = async (provider: OidcProviderButton): Promise<void> => {
    setLeaving(provider.id);
    try {
      const { url } = await call<{ url: string }>({
        method: 'post',
        url: '/api/oidc/start',
        payload: { tenantCode, providerId: provider.id, app: 'admin', ...(redirect ? { redirect } : {}) },
        isSilent: true,
      });
      window.location.assign(url);
    } catch (error) {
      setLeaving(undefined);
      setProblem(errorText(error));
    }
  };

  if (providers.length === 0 && !problem) return null;
  return (
    <Suspense fallback={null}>
      <SignInProvidersView providers={providers} problem={problem} leaving={leaving} onStart={start} />
    </Suspense>
  );
}
