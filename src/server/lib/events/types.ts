/**
 * The events the outbox carries (docs/extending.md "Events"). A record event names the entity
 * and the record's key; the others name what they are about in `entity` too (wfInstance,
 * wfTask, form, file, sysuser).
 */
export const EVENT_TYPES = [
  'record.added',
  'record.changed',
  'record.deleted',
  'record.restored',
  'record.purged',
  'workflow.started',
  'workflow.taskCreated',
  'workflow.taskAssigned',
  'workflow.taskCompleted',
  'workflow.ended',
  'form.published',
  'file.uploaded',
  'user.signedIn',
  'user.locked',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** An event as the outbox holds it and as webhooks and subscriptions receive it. */
export interface OutboxEvent {
  id: number;
  type: EventType;
  tenant: string;
  entity: string | null;
  key: string | null;
  actor: { userId: number | null; username: string | null };
  /** The record's version after the change, when it keeps one. */
  version: number | null;
  /** Names of the fields the change assigned: never their values. */
  changed: string[];
  /** A few facts of non-record events (a task's assignee, a file's name): never a secret. */
  detail: Record<string, string | number | boolean | null>;
  at: string;
}

/** What a writer says about one event; the tenant and the actor come from the transaction's actor. */
export interface EventInput {
  type: EventType;
  entity?: string | null;
  key?: unknown;
  version?: number | null;
  changed?: readonly string[];
  detail?: Record<string, string | number | boolean | null>;
}
