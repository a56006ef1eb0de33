import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Security headers on every answer. The content security policy allows only this origin's
 * scripts; styles may be inline because antd writes its CSS at run time.
 */
const HELMET_OPTIONS: FastifyHelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      // blob: the form designer's preview imports the validators the server compiled for an
      // unsaved form (POST /api/generator/form/validator); the page still evaluates no strings
      scriptSrc: ["'self'", 'blob:'],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:', 'blob:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      // blob: the file preview shows a PDF the page fetched with the caller's token
      frameSrc: ["'self'", 'blob:'],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'self'"],
    },
  },
  crossOriginEmbedderPolicy: false,
};

/**
 * The headers helmet sets with these options, learnt once from a throwaway instance. With no
 * per-request directive (no nonces, no functions) they are the same on every answer, and
 * @fastify/helmet would rebuild helmet (parse and check every directive) in two hooks of every
 * request: a measurable share of a list request's cost.
 */
async function helmetHeaders(options: FastifyHelmetOptions): Promise<[string, string | string[]][]> {
  const probe = Fastify({ logger: false });
  let headers: [string, string | string[]][] = [];
  try {
    await probe.register(helmet, options);
    probe.get('/', async (_request, reply) => {
      // Helmet writes on the raw response in onRequest; Fastify's own headers come later.
      headers = Object.entries(reply.raw.getHeaders()).flatMap(([name, value]) =>
        value === undefined ? [] : [[name, typeof value === 'number' ? String(value) : value]],
      );
      return '';
    });
    await probe.inject({ method: 'GET', url: '/' });
  } finally {
    await probe.close();
  }
  if (headers.length === 0) throw new Error('security headers: helmet set no header');
  return headers;
}

async function securityHeadersPlugin(app: FastifyInstance): Promise<void> {
  const headers = await helmetHeaders(HELMET_OPTIONS);
  app.addHook('onRequest', (_request, reply, done) => {
    const raw = reply.raw;
    for (const [name, value] of headers) raw.setHeader(name, value);
    done();
  });
}

export const securityHeaders = fp(securityHeadersPlugin, { name: 'security-headers' });
