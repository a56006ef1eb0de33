/** What other features may use of the forms feature (docs/architecture.md: features reach each other only here). */
export { compileForm, normalizeContent, onlineApiOf } from './services/compile.js';
export { formValidatorsModule } from './services/form-validators.js';
export { addForm, isOtherTenantsForm, tenantsEntities } from './services/forms.js';
export { FORM_TABLE } from './tables.js';
export { FORM_RECORD } from './schemas.js';
