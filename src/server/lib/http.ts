import type { FastifyRequest } from 'fastify';
import type { Envelope } from '../../engine/api-types.js';
import { AppError } from './errors.js';
import type { Actor } from './sql/toolkit.js';
import type { RequestAuth } from './auth.js';

export function ok<T>(data: T): Envelope<T> {
  return { code: 200, message: 'success', data };
}

/** The signed-in caller of a protected route (the auth hook has already refused anonymous ones). */
export function requireAuth(request: FastifyRequest): RequestAuth {
  if (!request.auth) throw new AppError('invalidToken');
  return request.auth;
}

export function actorOf(request: FastifyRequest): Actor {
  const auth = requireAuth(request);
  return { userId: auth.userId, username: auth.username, tenantCode: auth.tenantCode };
}

/** Query strings arrive as an object of strings and string arrays. */
export function queryOf(request: FastifyRequest): Record<string, unknown> {
  const query = request.query;
  return typeof query === 'object' && query !== null ? (query as Record<string, unknown>) : {};
}

/**
 * A whole-number query parameter as its route schema (plugins/route-schema-manifest.ts) read it, undefined
 * when not sent (or sent empty where the schema takes empty as not given).
 */
export function numberParam(request: FastifyRequest, name: string): number | undefined {
  const value = queryOf(request)[name];
  return typeof value === 'number' ? value : undefined;
}

/** A whole-number query parameter its route schema requires (a route without that rule is a bug). */
export function requiredNumberParam(request: FastifyRequest, name: string): number {
  const value = numberParam(request, name);
  if (value === undefined)
    throw new Error(`${request.url.split('?')[0] ?? ''}: the route schema must require ${name}`);
  return value;
}

/** The bearer token of the Authorization header; never read from a cookie (see tokenCookie). */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+([A-Za-z0-9_-]{20,200})\s*$/i.exec(header);
  return match?.[1];
}

/** A cookie's value, decoded; undefined when absent or malformed. */
export function cookieValue(header: string | undefined, wanted: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name !== wanted) continue;
    try {
      return decodeURIComponent(rest.join('='));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The session token of the "token" cookie (docs/product.md §9: the browser keeps it there). The
 * auth hook never reads it: only the back-office page and the schemas' public reads
 * (features/api-docs: the back-office imports validators.js, a request without headers) do.
 */
export function tokenCookie(header: string | undefined): string | undefined {
  const value = cookieValue(header, 'token');
  // the shape of a bearer token (bearerToken): anything else names no session
  return value !== undefined && /^[A-Za-z0-9_-]{20,200}$/.test(value) ? value : undefined;
}
