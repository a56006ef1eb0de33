/** What other features may use of the crud feature (docs/architecture.md: features reach each other only here). */
export { dictionaryLabels, exportRecords } from './export/records.js';
export { readDetailSheets } from './import/details.js';
export { handleImport, IMPORT_ANSWER, IMPORT_QUERY, IMPORT_QUERY_TEXT } from './import/handle.js';
export { IMPORT_CHUNK_ROWS, importRecords } from './import/import.js';
export { openUploadedSheet } from './import/read.js';
export { importTemplate } from './import/template.js';
export { checkUnique } from './services/checks.js';
export {
  addRecord,
  deleteRecords,
  entityService,
  getRecord,
  lockRecord,
  parseDeleteKeys,
  queryRecords,
  updateRecord,
  type CrudRequest,
  type CrudRequestFor,
  type Page,
} from './services/crud.js';
export { queryTree } from './services/tree.js';
export { purgeRecords, queryRecycleBin, restoreRecords, restoreVersion } from './services/recycle.js';
export { recycleBinModule } from './module.js';
export { crudRequestOf, type CrudRequestOf } from './request.js';
export {
  acceptMultipart,
  IMPORT_RESULT,
  MAX_IMPORT_BYTES,
  MAX_IMPORT_ROWS,
  uploadedBytes,
} from './import/upload.js';
