import type { Feature } from '../../lib/feature.js';
import { syncEntityMenus } from './seed.js';

/**
 * Tenants and their first data: the default tenant's seed (app.ts runs it first, since it tells
 * the first start's administrator password), the product's menus of the schemas' entities, and
 * what a new tenant is given (services/provision.ts, run by the crud feature's add of systenant).
 */
export const tenantsFeature: Feature = { name: 'tenants', start: syncEntityMenus };
