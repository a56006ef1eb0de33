/** What other features may use of the twofactor feature (docs/architecture.md: features reach each other only here). */
export { TENANT_PARAM as TWO_FACTOR_TENANT_PARAM } from './services/policy.js';
