/** What other features may use of the portal feature (docs/architecture.md: features reach each other only here). */
export { seedPortalContent } from './seed.js';
export { publicParams } from './services/params.js';
