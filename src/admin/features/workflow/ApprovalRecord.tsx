import { useCustom, type BaseRecord, type HttpError } from '@refinedev/core';
import { Alert, App, Button, Divider, Flex, Typography } from 'antd';
import { useMemo, useState } from 'react';
import {
  formFields,
  parseBusinessKey,
  workflowOf,
  type EntityDef,
  type WfApprovedRecord,
} from '../../../engine/index.js';
import { approvalStatusText } from '../../entity/approval.js';
import { titleOf } from '../../entity/labels.js';
import { useEntity } from '../../entity/resources.js';
import { useT } from '../../i18n.js';
import { useApiWrite, type ApiQuery } from '../../lib/api.js';
import { errorText } from '../../lib/screen-parts.js';
import { WF } from './api.js';
import { WfForm } from './WfForm.js';

type Values = Record<string, unknown>;

/** The record's values of its form's fields (what the entity's form shows). */
function formValues(entity: EntityDef, record: Values): Values {
  return Object.fromEntries(
    formFields(entity, 'create')
      .filter((field) => record[field.name] !== null && record[field.name] !== undefined)
      .map((field) => [field.name, record[field.name]]),
  );
}

/**
 * The business record an instance approves (x-entity.workflow) on its task and instance
 * screens: the record in its entity's form, read-only, through the viewer's field rights and row
 * scope (a record outside it is not shown: the server answers 404). The assignee of the open task
 * edits the fields the task may change (x-entity.workflow.edit) and saves them here.
 */
export function ApprovalRecord({
  instanceId,
  businessKey,
  stamp,
}: {
  instanceId: number;
  businessKey: string | null;
  /** Changes when the instance's open tasks do (a claim, a completion): the record is read again. */
  stamp: string;
}) {
  const t = useT();
  const { message } = App.useApp();
  const named = parseBusinessKey(businessKey);
  const entity = useEntity(named?.entity);
  const isRecordApproval = entity !== undefined && workflowOf(entity) !== undefined;
  // Read again whenever the open tasks change (its key holds the stamp), showing the last answer
  // meanwhile. Refine's own error notice is off: a record outside the viewer's scope (404) is
  // said below.
  const { query: answer } = useCustom<BaseRecord, HttpError, ApiQuery>({
    url: `${WF}/processinstance/record`,
    method: 'get',
    config: { query: { id: instanceId } },
    queryOptions: {
      queryKey: ['workflow', 'approval-record', instanceId, stamp],
      enabled: isRecordApproval,
      retry: false,
      refetchOnWindowFocus: false,
      placeholderData: (previous) => previous,
    },
    errorNotification: false,
  });
  // What the task's editor typed, for the open tasks as they were (a claim or an end drops it).
  const [typed, setTyped] = useState<{ stamp: string; values: Values } | undefined>(undefined);
  const edits = typed?.stamp === stamp ? typed.values : undefined;
  const setEdits = (values: Values | undefined): void =>
    setTyped(values === undefined ? undefined : { stamp, values });
  const { send, isSending } = useApiWrite();
  const data = answer.data?.data as WfApprovedRecord | undefined;
  const editable = useMemo(() => new Set(data?.editable ?? []), [data?.editable]);
  const values = useMemo(() => (entity && data ? formValues(entity, data.record) : {}), [entity, data]);
  if (!isRecordApproval) return null;
  if (answer.isError)
    return (
      <section aria-label={t('admin.approval.record')} className="wf-start-form">
        <Divider />
        <Alert
          type="warning"
          showIcon
          message={t('admin.approval.recordMissing')}
          data-testid="approval-record-missing"
        />
      </section>
    );
  if (!data || !entity) return null;
  const isEditing = data.taskId !== null && editable.size > 0;
  const fieldTitle = (name: string): string => {
    const field = entity.fieldsByName.get(name);
    return field ? titleOf(t, [`entities.${entity.name}.fields.${name}`], field.schema.title ?? name) : name;
  };
  const save = async (): Promise<void> => {
    const changed = edits ?? values;
    const record: Values = { version: data.record.version };
    for (const name of editable) record[name] = changed[name] ?? null;
    try {
      await send('post', `${WF}/task/updateRecord`, { id: data.taskId, record }, { silent: true });
      void message.success(t('admin.approval.saved'));
      setEdits(undefined);
      await answer.refetch();
    } catch (error) {
      void message.error(errorText(error));
    }
  };
  return (
    <section aria-label={t('admin.approval.record')} className="wf-start-form" data-testid="approval-record">
      <Divider />
      <Flex gap={12} align="baseline">
        <Typography.Title level={5}>{t('admin.approval.record')}</Typography.Title>
        <Typography.Text type="secondary" data-testid="approval-record-status">
          {approvalStatusText(t, data.record.approvalStatus)}
        </Typography.Text>
      </Flex>
      {isEditing && (
        <Alert
          type="info"
          showIcon
          message={t('admin.approval.recordEditable', { fields: [...editable].map(fieldTitle).join('、') })}
        />
      )}
      <WfForm
        entity={entity}
        formData={edits ?? values}
        readonly={!isEditing}
        {...(isEditing ? { editableFields: editable, onChange: setEdits } : {})}
      />
      {isEditing && (
        <Button loading={isSending} onClick={() => void save()} data-testid="approval-record-save">
          {t('admin.approval.save')}
        </Button>
      )}
    </section>
  );
}
