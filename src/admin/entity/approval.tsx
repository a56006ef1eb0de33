import type { BaseRecord } from '@refinedev/core';
import { App, Tag } from 'antd';
import { useCallback } from 'react';
import {
  APPROVAL_STATUS,
  approvalStatusKey,
  SUBMITTABLE,
  type ApprovalState,
  type EntityDef,
} from '../../engine/index.js';
import type { Translate } from '../i18n.js';
import { useApiWrite, withQuery } from '../lib/api.js';
import { errorText } from '../providers/data.js';

/**
 * Approval of records in the generated list (x-entity.workflow, engine/approval.ts): the status
 * column as a coloured tag in the user's language, and 提交审批 on the checked record.
 */

const COLOURS: Record<ApprovalState, string> = {
  draft: 'default',
  pending: 'processing',
  approved: 'success',
  rejected: 'error',
};

const isState = (value: unknown): value is ApprovalState =>
  typeof value === 'string' && Object.hasOwn(COLOURS, value);

/** 草稿 / 审批中 / 已通过 / 已驳回 (a value the engine does not know: as it is). */
export function approvalStatusText(t: Translate, value: unknown): string {
  return isState(value)
    ? t(approvalStatusKey(value))
    : value === null || value === undefined
      ? ''
      : String(value);
}

export function ApprovalStatusTag({ value, t }: { value: unknown; t: Translate }) {
  if (!isState(value)) return approvalStatusText(t, value);
  return (
    <Tag color={COLOURS[value]} data-testid="approval-status" data-status={value}>
      {approvalStatusText(t, value)}
    </Tag>
  );
}

/** Whether a list column is the approval status the engine adds. */
export const isApprovalStatusField = (field: string): boolean => field === APPROVAL_STATUS;

/**
 * 提交审批 of one record: asks first (the record is read-only while under approval), then
 * starts the process (POST <api>/submitApproval?<key>=…); a record already under approval or
 * approved is said without a call. `onDone` refreshes the list.
 */
export function useSubmitApproval({
  entity,
  base,
  t,
  onDone,
}: {
  entity: EntityDef;
  base: string;
  t: Translate;
  onDone: () => void;
}): (record: BaseRecord) => void {
  const { message, modal } = App.useApp();
  const { send } = useApiWrite();
  return useCallback(
    (record: BaseRecord) => {
      const status = record[APPROVAL_STATUS] ?? 'draft';
      if (!SUBMITTABLE.includes(status as ApprovalState)) {
        void message.warning(t('admin.approval.notSubmittable', { status: approvalStatusText(t, status) }));
        return;
      }
      const key = entity.key.name;
      const label = String(record[entity.label] ?? record[key] ?? '');
      modal.confirm({
        title: t('admin.approval.confirmTitle'),
        content: t('admin.approval.confirm', { label }),
        okText: t('admin.common.confirm'),
        cancelText: t('admin.common.cancel'),
        onOk: async () => {
          try {
            await send(
              'post',
              withQuery(`/api/${base}/submitApproval`, { [key]: String(record[key]) }),
              undefined,
              {
                silent: true,
              },
            );
            void message.success(t('admin.approval.submitted'));
            onDone();
          } catch (error) {
            void message.error(errorText(error));
          }
        },
      });
    },
    [entity, base, t, onDone, message, modal, send],
  );
}
