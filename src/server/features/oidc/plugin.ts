import type { FastifyInstance } from 'fastify';
import type { Feature } from '../../lib/feature.js';
import { providerRoutes } from './routes/providers.js';
import { signInRoutes } from './routes/sign-in.js';
import { syncOidcMenu } from './services/menu.js';
import { oidcTableSpecs } from './tables.js';

/**
 * OpenID Connect single sign-on: providers configured per tenant in the back-office; sign-in
 * through a provider (authorization code with PKCE, state and nonce, by openid-client) opens the
 * same session as the password; users link and unlink providers in 个人中心.
 */
export const oidcFeature: Feature = {
  name: 'oidc',
  tables: oidcTableSpecs,
  start: syncOidcMenu,
  routes: async (app: FastifyInstance) => {
    await app.register(providerRoutes);
    await app.register(signInRoutes);
  },
};
