import type { Feature } from '../../lib/feature.js';
import { accountRoutes } from './routes/index.js';

/** What users do for themselves: registration, recovery, captchas, profile, current authority. */
export const accountsFeature: Feature = { name: 'accounts', routes: accountRoutes };
