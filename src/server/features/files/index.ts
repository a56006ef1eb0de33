export { sendFile } from './send.js';
export { contentFiles } from './services/files.js';
