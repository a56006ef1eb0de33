/** What other features may use of the tenants feature (docs/architecture.md: features reach each other only here). */
export { seedDatabase, type SeedResult } from './seed.js';
export { tenantsModule } from './services/provision.js';
