/** What other features may use of the sessions feature (docs/architecture.md: features reach each other only here). */
export { endSessions, rescopeUsers } from './services/changes.js';
export { sessionsModule } from './module.js';
export { liveRateLimit, registerRateLimit, type RouteRateLimit } from './services/guard.js';
export { findSession, hashToken, type AuthContext } from './services/session.js';
export { currentUser, loadUserRoles } from './services/users.js';
export { currentRoles } from './auth-hook.js';
export { completeSignIn, issueExternalSignIn, renewSession, signInGuardFor } from './services/tokens.js';
export {
  setSignInStep,
  type ProvenSignIn,
  type SignInGrant,
  type SignInStep,
} from './services/second-step.js';
export { TOKEN_ANSWER, tokenAnswerWith, RENEWED_SESSION } from './answers.js';
export { openSharedState, type SharedState } from './services/shared-state.js';
