export { ruleLimit, type RuleName } from './services/settings.js';
