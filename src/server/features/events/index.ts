/** What other features and the tests may use of the events feature (docs/architecture.md). */
export { addressGuard, type AddressGuard } from '../../lib/address-guard.js';
export { signature } from './services/post.js';
export { runEventRound } from './services/poller.js';
export {
  DEFAULT_EVENT_RETENTION_DAYS,
  EVENT_RETENTION_PARAM,
  eventRetentionModule,
  purgeOldEvents,
} from './services/retention.js';
