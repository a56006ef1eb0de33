export { seedPortalContent } from './seed.js';
export { publicParams } from './services/params.js';
