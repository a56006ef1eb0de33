import { App, Button, Form, Input, Modal } from 'antd';
import { useState } from 'react';
import { useT } from '../../i18n.js';
import { PROCESS_VARIABLE_NAME } from '../../../engine/api-types.js';
import { useApiWrite } from '../../lib/api.js';
import { errorText } from '../../lib/screen-parts.js';
import { WF, type InstanceDetail } from './api.js';
import { typedValue } from './Incident.js';
import { label } from './parts.js';

/** A process variable's name, as the server takes it. */
const VARIABLE_NAME = new RegExp(PROCESS_VARIABLE_NAME);

/**
 * Sets one variable of a running instance (processinstance/variables): a conditional event whose
 * condition then holds goes on at once, and the change is kept in the variables' history.
 */
export function SetVariable({ instance, onDone }: { instance: InstanceDetail; onDone: () => void }) {
  const t = useT();
  const { message } = App.useApp();
  const { send, isSending } = useApiWrite();
  const [isOpen, setOpen] = useState(false);
  const [form] = Form.useForm<{ name: string; value?: string }>();
  const save = async ({ name, value }: { name: string; value?: string }): Promise<void> => {
    try {
      const variables = { [name.trim()]: typedValue((value ?? '').trim()) };
      // silent: the failure is shown once, here
      await send('post', `${WF}/processinstance/variables`, { id: instance.id, variables }, { silent: true });
      void message.success(label(t, 'variableSet', { name: name.trim() }));
      setOpen(false);
      onDone();
    } catch (error) {
      void message.error(errorText(error));
    }
  };
  return (
    <>
      <Button onClick={() => setOpen(true)} data-testid="wf-set-variable">
        {label(t, 'setVariable')}
      </Button>
      <Modal
        open={isOpen}
        title={label(t, 'setVariable')}
        okText={t('admin.crud.save')}
        cancelText={t('admin.common.cancel')}
        confirmLoading={isSending}
        onOk={() =>
          void form.validateFields().then(
            (values) => save(values),
            () => undefined,
          )
        }
        onCancel={() => setOpen(false)}
        destroyOnHidden
        data-testid="wf-set-variable-dialog"
      >
        <Form form={form} layout="vertical" preserve={false}>
          <Form.Item
            name="name"
            label={label(t, 'variable')}
            rules={[
              { required: true, message: label(t, 'variableNameRequired') },
              { pattern: VARIABLE_NAME, message: label(t, 'variableNamePattern') },
            ]}
          >
            <Input data-testid="wf-variable-name" maxLength={64} />
          </Form.Item>
          <Form.Item name="value" label={label(t, 'value')} extra={label(t, 'setVariableHint')}>
            <Input data-testid="wf-variable-value" maxLength={2000} />
          </Form.Item>
        </Form>
      </Modal>
    </>
  );
}
