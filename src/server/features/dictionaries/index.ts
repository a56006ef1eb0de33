/** What other features may use of the dictionaries feature (docs/architecture.md). */
export { dictionariesModule } from './module.js';
