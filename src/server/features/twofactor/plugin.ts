import type { Feature } from '../../lib/feature.js';
import { setSignInStep } from '../sessions/index.js';
import { twoFactorRoutes } from './routes/index.js';
import { twoFactorStep } from './services/challenge.js';
import { twoFactorTableSpecs } from './tables.js';

/**
 * Two-factor sign-in (TOTP, RFC 6238): enrolment with a QR code and recovery codes, a second step
 * after the password or SMS code, required per role (sysrole requireTwoFactor) or per tenant (the
 * twoFactorRequired param), reset by an administrator.
 */
export const twoFactorFeature: Feature = {
  name: 'twofactor',
  tables: twoFactorTableSpecs,
  start: async (ctx) => {
    setSignInStep(ctx, twoFactorStep);
  },
  routes: twoFactorRoutes,
};
