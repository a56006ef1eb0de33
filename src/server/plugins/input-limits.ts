import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError, type ErrorBody } from '../lib/errors.js';
import { DEFAULT_LANGUAGE, localizer, translatorFor, type I18n } from '../lib/i18n.js';

/**
 * No request body of the API nests deeper than a handful of levels (the deepest are the
 * authorization lists); anything far deeper is an attack on recursive code, refused at the door.
 */
export const MAX_JSON_DEPTH = 16;

/**
 * The JSON pointer of the top-level field under which a value nests deeper than `limit`
 * (objects and arrays count one level each), or undefined. Iterative: the value may be deep
 * enough to overflow any recursive walk.
 */
export function tooDeepField(value: unknown, limit = MAX_JSON_DEPTH): string | undefined {
  const stack: { item: unknown; depth: number; field: string }[] = [{ item: value, depth: 0, field: '/' }];
  while (stack.length > 0) {
    const { item, depth, field } = stack.pop() as { item: unknown; depth: number; field: string };
    if (typeof item !== 'object' || item === null) continue;
    if (depth + 1 > limit) return field;
    for (const [key, child] of Object.entries(item)) {
      const childField = depth === 0 ? `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}` : field;
      stack.push({ item: child, depth: depth + 1, field: childField });
    }
  }
  return undefined;
}

/**
 * The JSON body parser of every route: Fastify's own (which refuses __proto__ and constructor
 * keys), then a depth check, so no handler or helper ever sees a deeply nested value.
 */
async function inputLimitsPlugin(app: FastifyInstance): Promise<void> {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    parseJson(request, typeof body === 'string' ? body : body.toString('utf8'), (error, value) => {
      if (error) {
        done(error, undefined);
        return;
      }
      const field = tooDeepField(value);
      if (field === undefined) {
        done(null, value);
        return;
      }
      const t = translatorFor(request as FastifyRequest);
      done(
        new AppError('validation', {}, [
          { field, message: t('validation.maxDepth', { limit: MAX_JSON_DEPTH }) },
        ]),
        undefined,
      );
    });
  });
  // A body-carrying route that declares a body schema treats "no body" as an empty object;
  // a literal null stays null and is refused by the schema.
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body === undefined && request.routeOptions.schema?.body !== undefined) request.body = {};
    done();
  });
}

export const inputLimits = fp(inputLimitsPlugin, { name: 'input-limits' });

/** What Node's HTTP parser refuses before Fastify sees a request, by status. */
const CLIENT_ERRORS: Record<number, { key: string; code: string }> = {
  400: { key: 'errors.badRequest', code: 'error' },
  408: { key: 'errors.timeout', code: 'timeout' },
  413: { key: 'errors.tooLarge', code: 'too_large' },
  431: { key: 'errors.headersTooLarge', code: 'header_overflow' },
};

function clientErrorStatus(error: Error & { code?: string }): number {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  if (error.code === 'HPE_HEADER_OVERFLOW') return 431;
  if (error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return 413;
  return 400;
}

/**
 * The HTTP server's clientError handler: a request Node refuses itself (a URL or headers over
 * 16 KB, a malformed request line, a timeout) still gets the API's envelope. No request was
 * parsed, so the message is in the default language.
 */
export function clientErrorHandler(i18n: I18n): (error: Error & { code?: string }, socket: Socket) => void {
  const t = localizer(i18n, DEFAULT_LANGUAGE).t;
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const status = clientErrorStatus(error);
    const entry = CLIENT_ERRORS[status] ?? { key: 'errors.badRequest', code: 'error' };
    const body: ErrorBody = { code: status, message: t(entry.key) };
    if (status === 400) body.errors = [];
    const text = JSON.stringify(body);
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
          `Content-Type: application/json; charset=utf-8\r\n\r\n${text}`,
      );
    }
    socket.destroy(error);
  };
}
