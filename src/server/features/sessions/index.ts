/** What other features may use of the sessions feature (docs/architecture.md: features reach each other only here). */
export { endSessions, rescopeUsers } from './services/changes.js';
export { sessionsModule } from './module.js';
export { liveRateLimit, registerRateLimit, type RouteRateLimit } from './services/guard.js';
export { findSession, type AuthContext } from './services/session.js';
export { currentUser } from './services/users.js';
export { currentRoles } from './auth-hook.js';
export { renewSession } from './services/tokens.js';
export { RENEWED_SESSION } from './answers.js';
export { openSharedState, type SharedState } from './services/shared-state.js';
