/** What other features may use of the workflow feature (docs/architecture.md: features reach each other only here). */
export { tenantModelIds } from './services/models.js';
export { candidateOf, noticeInsert, noticeWithEvent } from './services/people.js';
export { deployShippedProcesses, isProcessDeployed, shippedProcessFile } from './services/shipped.js';
