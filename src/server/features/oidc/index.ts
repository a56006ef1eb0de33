/** What other features may use of the oidc feature (docs/architecture.md: features reach each other only here). */
export { OIDC_MENU } from './services/menu.js';
