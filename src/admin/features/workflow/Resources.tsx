import { Button, Form, Modal, Space, Table, Typography } from 'antd';
import { useState } from 'react';
import { useT } from '../../i18n.js';
import { useApiGet } from '../../lib/api.js';
import { WF, type DeploymentResource, type Row } from './api.js';
import { DefinitionDiagram, label } from './parts.js';
import { UserTreeSelect } from './UserTreeSelect.js';

/** Saves a text as a file through the browser (the answer came with the caller's token). */
function saveFile(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/xml;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}

/**
 * 部署管理 → 资源: the files a deployment was made of (its BPMN file as deployed), each with the
 * definitions it made, to view (diagram and XML) or download.
 */
export function DeploymentResources({ deployment, onClose }: { deployment: Row; onClose: () => void }) {
  const t = useT();
  const resources = useApiGet<DeploymentResource[]>(`${WF}/deployment/resources`, { id: deployment.id });
  const [viewing, setViewing] = useState<DeploymentResource | null>(null);
  return (
    <Modal
      open
      width={960}
      title={label(t, 'resourcesTitle', { name: String(deployment.name ?? deployment.id) })}
      footer={null}
      onCancel={onClose}
      destroyOnHidden
    >
      <Table<DeploymentResource>
        rowKey="name"
        size="small"
        pagination={false}
        loading={resources.isLoading}
        dataSource={resources.data ?? []}
        data-testid="wf-deployment-resources"
        columns={[
          { key: 'name', dataIndex: 'name', title: label(t, 'resourceName') },
          {
            key: 'size',
            title: label(t, 'size'),
            render: (_v, row) => label(t, 'bytes', { count: row.size }),
          },
          {
            key: 'definitions',
            title: label(t, 'definitions'),
            render: (_v, row) =>
              row.definitions
                .map(
                  (definition) =>
                    `${definition.name ?? definition.key} (${definition.key} v${definition.version})`,
                )
                .join(', '),
          },
          {
            key: 'actions',
            title: label(t, 'actions'),
            render: (_v, row) => (
              <Space size={4}>
                <Button size="small" onClick={() => setViewing(row)} data-testid="view-resource">
                  {label(t, 'view')}
                </Button>
                <Button
                  size="small"
                  onClick={() => saveFile(row.name, row.xml)}
                  data-testid="download-resource"
                >
                  {label(t, 'download')}
                </Button>
              </Space>
            ),
          },
        ]}
      />
      {viewing && (
        <section aria-label={viewing.name} data-testid="wf-resource-view">
          <Typography.Title level={5}>{viewing.name}</Typography.Title>
          <DefinitionDiagram xml={viewing.xml} />
          <pre className="wf-xml" tabIndex={0} data-testid="wf-resource-xml">
            {viewing.xml}
          </pre>
        </section>
      )}
    </Modal>
  );
}

/**
 * The user a task is transferred to (转办), in the comment dialog: the all-tasks list's (an
 * administrator hands someone's task on: `hint` transferHintAdmin) as the task page's.
 */
export function TransferField({ hint = 'transferHint' }: { hint?: 'transferHint' | 'transferHintAdmin' }) {
  const t = useT();
  return (
    <Form.Item
      name="username"
      label={label(t, 'transferTo')}
      extra={label(t, hint)}
      rules={[{ required: true, whitespace: true, message: label(t, 'usernameRequired') }]}
    >
      <UserTreeSelect data-testid="transfer-username" popupClassName="wf-user-popup" />
    </Form.Item>
  );
}
