/** What other features may use of the notification inbox (docs/architecture.md). */
export { noticeAudience } from './services/inbox.js';
