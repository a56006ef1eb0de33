import type CoreForm from '@rjsf/core';
import type { ErrorSchema } from '@rjsf/utils';
import type { HttpError } from '@refinedev/core';
import { App, DatePicker, Divider, Form, Input, Modal, Typography } from 'antd';
import type { Dayjs } from 'dayjs';
import { useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { useEntity } from '../../entity/resources.js';
import { useT } from '../../i18n.js';
import { useApiWrite } from '../../lib/api.js';
import { errorText } from '../../lib/screen-parts.js';
import { WF, type Definition, type Instance } from './api.js';
import { useRecountTasks } from './badges.js';
import { label } from './parts.js';
import { extraErrorsOf, WfForm } from './WfForm.js';
import { UserTreeSelect } from './UserTreeSelect.js';

type Values = Record<string, unknown>;

interface StartFields {
  description: string;
  candidate: string;
  range: [Dayjs, Dayjs];
  businessKey?: string;
}

/**
 * Starting a process (docs/product.md §5): description required (at most 512), candidate and range time
 * required; the start event's form (formKey = an entity) rendered by the generated screens'
 * renderer and checked by the server with the entity's validators.
 */
export function StartDialog({ definition, onClose }: { definition: Definition; onClose: () => void }) {
  const t = useT();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const recount = useRecountTasks();
  const entity = useEntity(definition.startFormKey ?? undefined);
  const [fields] = Form.useForm<StartFields>();
  const formRef = useRef<CoreForm<Values> | null>(null);
  const [formData, setFormData] = useState<Values>({});
  const [extraErrors, setExtraErrors] = useState<ErrorSchema<Values> | undefined>(undefined);
  const { send, isSending } = useApiWrite();

  const start = async (form: Values | undefined): Promise<void> => {
    const values = await fields.validateFields();
    setExtraErrors(undefined);
    try {
      const instance = await send<Instance>('post', `${WF}/processinstance/start`, {
        processDefinitionId: definition.id,
        description: values.description.trim(),
        ...(values.businessKey?.trim() ? { businessKey: values.businessKey.trim() } : {}),
        variables: {
          candidate: values.candidate.trim(),
          rangeStart: values.range[0].format('YYYY-MM-DD'),
          rangeEnd: values.range[1].format('YYYY-MM-DD'),
        },
        ...(form ? { formData: form } : {}),
      });
      void message.success(label(t, 'started'));
      recount();
      onClose();
      navigate(`/myprocessdetails?id=${instance.id}`);
    } catch (error) {
      const errors = extraErrorsOf((error as HttpError).errors);
      if (errors) setExtraErrors(errors);
      else void message.error(errorText(error));
    }
  };

  const confirm = (): void => {
    // The entity form checks itself first; its onSubmit then starts.
    if (entity) {
      void fields.validateFields().then(
        () => formRef.current?.submit(),
        () => formRef.current?.validateForm(),
      );
    } else void start(undefined).catch(() => undefined);
  };

  return (
    <Modal
      open
      width={entity ? 860 : 560}
      title={label(t, 'startTitle', { name: definition.name ?? definition.key })}
      okText={label(t, 'start')}
      cancelText={t('admin.common.cancel')}
      confirmLoading={isSending}
      onOk={confirm}
      onCancel={onClose}
      destroyOnHidden
      maskClosable={false}
      data-testid="start-dialog"
    >
      <Form form={fields} layout="vertical">
        <Form.Item
          name="description"
          label={label(t, 'description')}
          rules={[
            { required: true, whitespace: true, message: label(t, 'descriptionRequired') },
            { max: 512, message: label(t, 'descriptionTooLong') },
          ]}
        >
          <Input.TextArea rows={3} maxLength={512} showCount data-testid="start-description" />
        </Form.Item>
        <Form.Item
          name="candidate"
          label={label(t, 'candidate')}
          rules={[{ required: true, whitespace: true, message: label(t, 'candidateRequired') }]}
        >
          <UserTreeSelect data-testid="start-candidate" popupClassName="wf-user-popup" />
        </Form.Item>
        <Form.Item
          name="range"
          label={label(t, 'rangeTime')}
          rules={[{ required: true, message: label(t, 'rangeRequired') }]}
        >
          <DatePicker.RangePicker
            className="wf-range"
            data-testid="start-range"
            placeholder={[label(t, 'rangeStart'), label(t, 'rangeEnd')]}
          />
        </Form.Item>
        <Form.Item name="businessKey" label={label(t, 'businessKey')} rules={[{ max: 200 }]}>
          <Input maxLength={200} />
        </Form.Item>
      </Form>
      {entity && (
        <>
          <Divider />
          <Typography.Title level={5}>{label(t, 'startForm')}</Typography.Title>
          <WfForm
            entity={entity}
            formRef={formRef}
            formData={formData}
            onChange={setFormData}
            onSubmit={(values) => void start(values).catch(() => undefined)}
            extraErrors={extraErrors}
          />
        </>
      )}
    </Modal>
  );
}
