/** What other features may use of the accounts feature (docs/architecture.md: features reach each other only here). */
export { isUsernameTaken } from './services/register.js';
export { signInsPerDay, type SignInDay } from './services/sign-ins.js';
