import { Alert, App, Button, Form, Input, Modal } from 'antd';
import { useState } from 'react';
import { useT } from '../../i18n.js';
import { useApiWrite } from '../../lib/api.js';
import { errorText } from '../../lib/screen-parts.js';
import { WF, type InstanceDetail } from './api.js';
import { label } from './parts.js';

/**
 * An instance stopped in an incident: what stopped it, in the user's words (the element by its
 * name, the unset variable), and a retry that may first set that variable (issue 40, point 2).
 */

type Incident = NonNullable<InstanceDetail['incident']>;

/** What stopped the instance, as a sentence of the user's language. */
export function incidentText(t: ReturnType<typeof useT>, incident: Incident): string {
  const element = incident.activityName || incident.activityId;
  return incident.variable
    ? label(t, 'incidentUnset', { element, variable: incident.variable })
    : label(t, 'incidentFailed', { element, message: incident.message });
}

/** A variable's value as typed: JSON when it reads as JSON (numbers, true, lists), else the text. */
export function typedValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The retry of an instance's incident, with the unset variable's value when one is named. */
export function RetryIncident({ instance, onDone }: { instance: InstanceDetail; onDone: () => void }) {
  const t = useT();
  const { message } = App.useApp();
  const { send, isSending } = useApiWrite();
  const [isOpen, setOpen] = useState(false);
  const [form] = Form.useForm<{ value?: string }>();
  const incident = instance.incident;
  if (!incident) return null;
  const retry = async (value: string | undefined): Promise<void> => {
    try {
      const variables =
        incident.variable && value !== undefined && value.trim() !== ''
          ? { [incident.variable]: typedValue(value.trim()) }
          : {};
      // silent: the failure is shown once, here
      await send('post', `${WF}/processinstance/retry`, { id: instance.id, variables }, { silent: true });
      void message.success(label(t, 'retried'));
      setOpen(false);
      onDone();
    } catch (error) {
      void message.error(errorText(error));
    }
  };
  return (
    <>
      <Button type="primary" onClick={() => setOpen(true)} data-testid="wf-retry">
        {label(t, 'retry')}
      </Button>
      <Modal
        open={isOpen}
        title={label(t, 'retryTitle')}
        okText={label(t, 'retry')}
        cancelText={t('admin.common.cancel')}
        confirmLoading={isSending}
        onOk={() =>
          void form.validateFields().then(
            (values) => retry(values.value),
            () => undefined,
          )
        }
        onCancel={() => setOpen(false)}
        destroyOnHidden
        data-testid="wf-retry-dialog"
      >
        <Alert type="warning" showIcon message={incidentText(t, incident)} style={{ marginBottom: 16 }} />
        <Form form={form} layout="vertical" preserve={false}>
          {incident.variable && (
            <Form.Item
              name="value"
              label={label(t, 'retryValue', { variable: incident.variable })}
              extra={label(t, 'retryValueHint')}
            >
              <Input data-testid="wf-retry-value" maxLength={2000} />
            </Form.Item>
          )}
        </Form>
      </Modal>
    </>
  );
}
