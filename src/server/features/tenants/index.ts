export { seedDatabase, type SeedResult } from './seed.js';
export { tenantAdded } from './services/provision.js';
