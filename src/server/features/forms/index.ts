export { compileForm, normalizeContent, onlineApiOf } from './services/compile.js';
export { formValidatorsModule } from './services/form-validators.js';
export { addForm } from './services/forms.js';
export { FORM_TABLE } from './tables.js';
export { FORM_RECORD } from './schemas.js';
