import { lookup } from 'node:dns/promises';
import type { CustomFetch } from 'openid-client';
import { isIP } from 'node:net';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { addressGuard, isNonPublicAddress } from '../../../lib/address-guard.js';
import { AppError } from '../../../lib/errors.js';
import { BUDGETS } from '../../../lib/budgets.js';

/**
 * The server fetches what an administrator typed as the issuer (and the addresses its discovery
 * document names): a tenant's administrator must not reach the server's own network through it
 * (SSRF). Loopback, private, link-local and other non-public addresses, and plain http, are
 * refused unless the provider is marked allowPrivateNetwork, which only the platform
 * administrator may set (a provider inside the organisation's network, or a test's).
 * The ranges are lib/address-guard's, shared with the webhooks.
 *
 * checkFetchable: why an address may not be fetched (an AppError naming `field`), or nothing when it may.
 */
export async function checkFetchable(url: URL, allowPrivateNetwork: boolean): Promise<void> {
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowPrivateNetwork))
    throw new AppError('oidcIssuerRefused', { reason: 'https' });
  if (allowPrivateNetwork) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
  if (addresses.length === 0 || addresses.some(isNonPublicAddress))
    throw new AppError('oidcIssuerRefused', { reason: 'private' });
}

/** Connections to public addresses only, checked at the connection's own lookup. */
const PUBLIC_ONLY = addressGuard([]);

/** A request body of openid-client's as bytes (it sends form bodies, as URLSearchParams or text). */
async function bodyBytes(body: unknown): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  return Buffer.from(await new Response(body as BodyInit).arrayBuffer());
}

/**
 * fetch for openid-client (its customFetch): each address checked first and again where the
 * connection is made (the lookup of the request itself, so a name that resolves to a private
 * address after the check, DNS rebinding, is refused too), redirects not followed, a time budget
 * and a size budget on the answer.
 */
export function guardedFetch(allowPrivateNetwork: boolean): CustomFetch {
  return async (url, options) => {
    const target = new URL(url);
    await checkFetchable(target, allowPrivateNetwork);
    const budget = BUDGETS.oidc;
    const payload = await bodyBytes(options.body);
    const headers: Record<string, string> = Object.fromEntries(new Headers(options.headers));
    if (payload) headers['content-length'] = String(payload.byteLength);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, reject) => {
      const request = send(
        target,
        {
          method: options.method,
          headers,
          ...(allowPrivateNetwork ? {} : { lookup: PUBLIC_ONLY.lookup }),
          signal: options.signal
            ? AbortSignal.any([AbortSignal.timeout(budget.requestMs), options.signal])
            : AbortSignal.timeout(budget.requestMs),
        },
        (answer: IncomingMessage) => {
          const declared = Number(answer.headers['content-length'] ?? '0');
          if (declared > budget.answerBytes) {
            answer.destroy();
            reject(new AppError('oidcProviderFailed'));
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          answer.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > budget.answerBytes) {
              answer.destroy();
              reject(new AppError('oidcProviderFailed'));
              return;
            }
            chunks.push(chunk);
          });
          answer.on('error', (error) => reject(new TypeError('fetch failed', { cause: error })));
          answer.on('end', () => {
            const answerHeaders = new Headers();
            for (const [name, value] of Object.entries(answer.headers))
              for (const item of Array.isArray(value) ? value : [value])
                if (item !== undefined) answerHeaders.append(name, item);
            const status = answer.statusCode ?? 502;
            const hasBody = status !== 204 && status !== 304;
            resolve(
              new Response(hasBody ? Buffer.concat(chunks) : null, {
                status,
                statusText: answer.statusMessage ?? '',
                headers: answerHeaders,
              }),
            );
          });
        },
      );
      // as fetch does, a failure to connect or a time-out is a TypeError (providerFailure: 502)
      request.on('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'EADDRFORBIDDEN'
            ? new AppError('oidcIssuerRefused', { reason: 'private' })
            : new TypeError('fetch failed', { cause: error }),
        ),
      );
      request.end(payload);
    });
  };
}
