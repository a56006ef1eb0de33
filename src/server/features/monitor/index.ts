/** What other features may use of the monitor feature (docs/architecture.md: features reach each other only here). */
export { ruleLimit, type RuleName } from './services/settings.js';
