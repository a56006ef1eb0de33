/** What other features may use of the apikeys feature (docs/architecture.md: features reach each other only here). */
export { isKeyRequest } from './key-hook.js';
