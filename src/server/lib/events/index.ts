/** The event stream: an outbox written in the change's transaction (docs/extending.md "Events"). */
export { BOOKKEEPING_FIELDS, changedFields, eventInsert, eventOfAudit, recordEvents } from './outbox.js';
export { eventTableSpecs } from './table.js';
export { EVENT_TYPES, type EventInput, type EventType, type OutboxEvent } from './types.js';
