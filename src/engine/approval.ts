import type { EntitySchema, FieldSchema, WorkflowOptions } from './types.js';

/**
 * Approval of records (x-entity.workflow): an entity that names a process gets two fields the
 * engine keeps, its approval status and the instance that decides it. A record is submitted
 * (提交审批) as an instance of the process whose business key is `<entity>:<key>`; the status
 * follows the instance in the engine's own transactions (features/workflow/services/records.ts),
 * and the record is read-only while the instance runs, unless the open task allows an edit.
 */

/** The field holding a record's approval status (column approval_status). */
export const APPROVAL_STATUS = 'approvalStatus';
/** The field holding the instance that approves the record now or did last (column approval_instance). */
export const APPROVAL_INSTANCE = 'approvalInstance';

/** 草稿 / 审批中 / 已通过 / 已驳回. */
export const APPROVAL_STATES = ['draft', 'pending', 'approved', 'rejected'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/** The locale key of a status's label (草稿 / 审批中 / 已通过 / 已驳回): the list's tag and the export's cell. */
export const approvalStatusKey = (state: ApprovalState): string => `admin.approval.status.${state}`;

/** The statuses a record may be submitted from: not under approval, not approved. */
export const SUBMITTABLE: readonly ApprovalState[] = ['draft', 'rejected'];

/** The fields the engine adds to an entity with a workflow (built like bookkeeping fields). */
export const APPROVAL_FIELDS: Record<string, FieldSchema> = {
  [APPROVAL_STATUS]: {
    type: 'string',
    title: 'Approval status',
    enum: [...APPROVAL_STATES],
    readOnly: true,
    // Shown, pinned at the right end of the list (in sight however wide the table), and filtered by
    // a select of its four values (a select of few values needs no index).
    'x-list': { visible: true, width: 100, sorter: false, filter: 'select', fixed: 'right' },
  },
  [APPROVAL_INSTANCE]: {
    type: 'integer',
    title: 'Approval instance',
    readOnly: true,
    'x-list': { visible: false, filter: 'none' },
  },
};

/** The workflow an entity names (x-entity.workflow), if any. */
export function workflowOf(entity: { schema: EntitySchema }): WorkflowOptions | undefined {
  return entity.schema['x-entity'].workflow;
}

/** The business key of a record's approval instance: `<entity>:<key>`. */
export function approvalBusinessKey(entity: string, key: unknown): string {
  return `${entity}:${String(key)}`;
}

/** The entity and the key a business key names, when it has the record's form. */
export function parseBusinessKey(
  businessKey: string | null | undefined,
): { entity: string; key: string } | undefined {
  if (!businessKey) return undefined;
  const at = businessKey.indexOf(':');
  if (at <= 0 || at === businessKey.length - 1) return undefined;
  return { entity: businessKey.slice(0, at), key: businessKey.slice(at + 1) };
}

/** The status a record takes when its approval instance ends with the engine's status. */
export function approvalStateOnEnd(instanceStatus: string): ApprovalState {
  if (instanceStatus === 'over') return 'approved';
  if (instanceStatus === 'rejected') return 'rejected';
  // terminated by an administrator, withdrawn by the initiator: back to draft (submittable again)
  return 'draft';
}
