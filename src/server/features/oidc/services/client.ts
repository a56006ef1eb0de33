import * as client from 'openid-client';
import { AppError } from '../../../lib/errors.js';
import { guardedFetch } from './network.js';
import type { ProviderRow } from './providers.js';

/** The AppError a failure of openid-client carries (a refused address), if any. */
function appErrorIn(error: unknown): AppError | undefined {
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 5; depth += 1) {
    if (cause instanceof AppError) return cause;
    cause = cause.cause;
  }
  return undefined;
}

/**
 * A failure of a call to the provider: the address refusal as it is (400), an answer the
 * protocol refuses (a wrong state, nonce, signature, issuer or code: 400 oidcAnswerInvalid), any
 * other failure (unreachable, timed out) 502.
 */
export function providerFailure(error: unknown): AppError {
  const inner = appErrorIn(error);
  if (inner) return inner;
  if (error instanceof client.ResponseBodyError || error instanceof client.AuthorizationResponseError)
    return new AppError('oidcAnswerInvalid');
  // a network failure reaches here as a ClientError caused by fetch's TypeError or a time-out
  const cause = error instanceof Error ? error.cause : undefined;
  if (
    error instanceof client.ClientError &&
    !(cause instanceof TypeError) &&
    !(cause instanceof DOMException)
  )
    return new AppError('oidcAnswerInvalid');
  return new AppError('oidcProviderFailed');
}

/** How long a provider's discovery document is kept before it is fetched again. */
const DISCOVERY_KEEP_MS = 10 * 60_000;
/** At most this many providers' configurations are kept (the oldest is dropped first). */
const DISCOVERY_KEPT = 200;
const discovered = new Map<string, { config: client.Configuration; until: number }>();

/**
 * The provider's configuration from its discovery document (openid-client), fetched through the
 * address guard; plain http only for a provider allowed the private network. Kept for
 * DISCOVERY_KEEP_MS per provider and settings (a changed issuer, client or secret fetches anew), so
 * that a sign-in does not wait for the provider's discovery each time; a failure is not kept.
 */
export async function providerConfig(provider: ProviderRow): Promise<client.Configuration> {
  const key = JSON.stringify([
    provider.id,
    provider.issuer,
    provider.client_id,
    provider.client_secret,
    provider.allow_private_network,
  ]);
  const kept = discovered.get(key);
  if (kept && kept.until > Date.now()) return kept.config;
  try {
    const config = await client.discovery(
      new URL(provider.issuer),
      provider.client_id,
      provider.client_secret ? { client_secret: provider.client_secret } : {},
      provider.client_secret ? client.ClientSecretPost(provider.client_secret) : client.None(),
      {
        [client.customFetch]: guardedFetch(provider.allow_private_network),
        execute: provider.allow_private_network ? [client.allowInsecureRequests] : [],
      },
    );
    discovered.delete(key);
    discovered.set(key, { config, until: Date.now() + DISCOVERY_KEEP_MS });
    for (const oldest of discovered.keys()) {
      if (discovered.size <= DISCOVERY_KEPT) break;
      discovered.delete(oldest);
    }
    return config;
  } catch (error) {
    const inner = appErrorIn(error);
    throw inner ?? new AppError('oidcProviderFailed');
  }
}

export { client };
