import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const SCRIPT_SOURCES = ["'self'"];

/**
 * The back-office page may also compile scripts: its forms validate with ajv, which compiles
 * each entity's JSON Schema to a function in the browser (the same rules as the server). The
 * portal's pages never may.
 */
export const BACK_OFFICE_SCRIPT_SRC = `script-src ${[...SCRIPT_SOURCES, "'unsafe-eval'"].join(' ')}`;

/** The policy of the back-office page: the site's own, with BACK_OFFICE_SCRIPT_SRC. */
export function backOfficePolicy(sitePolicy: string): string {
  return sitePolicy.replace(/script-src [^;]*/, BACK_OFFICE_SCRIPT_SRC);
}

/**
 * Security headers on every answer. The content security policy allows only this origin's
 * scripts; styles may be inline because antd writes its CSS at run time.
 */
async function securityHeadersPlugin(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: SCRIPT_SOURCES,
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        frameSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'self'"],
      },
    },
    crossOriginEmbedderPolicy: false,
  });
}

export const securityHeaders = fp(securityHeadersPlugin, { name: 'security-headers' });
