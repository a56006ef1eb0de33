/** What other features may use of the files feature (docs/architecture.md: features reach each other only here). */
export { sendFile } from './send.js';
export { contentFiles } from './services/files.js';
export { NETDISC_PARAM_DEFAULTS } from './services/netdisc-rules.js';
