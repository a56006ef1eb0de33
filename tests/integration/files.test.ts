import { localBackend } from './files-backends.js';
import { filesSuite } from './files-suite.js';

/** The files suite on the local storage (FILES_DIR). */
filesSuite(localBackend);
