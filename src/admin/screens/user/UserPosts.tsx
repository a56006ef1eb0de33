import { DeleteOutlined } from '@ant-design/icons';
import { useCreate, useDelete, useList, type BaseRecord, type HttpError } from '@refinedev/core';
import { App, Button, Form, Input, Popconfirm, Radio, Table, Tag, TreeSelect } from 'antd';
import { useMemo } from 'react';
import type { RecordScreenProps } from '../../entity/extensions.js';
import { useT } from '../../i18n.js';
import { useApiGet, useCanButton } from '../api.js';
import { API, errorText, fieldTitle } from '../common.js';

interface PostNode {
  id: number;
  postCode: string;
  postName: string;
  children?: PostNode[];
}

interface TreeOption {
  value: number;
  title: string;
  children: TreeOption[];
}

const POST_TYPES = ['main', 'parttime'] as const;

function toOptions(nodes: readonly PostNode[], names: Map<number, string>): TreeOption[] {
  return nodes.map((node) => {
    names.set(node.id, node.postName);
    return { value: node.id, title: node.postName, children: toOptions(node.children ?? [], names) };
  });
}

interface NewPost {
  postId?: number;
  postType: (typeof POST_TYPES)[number];
  postDescription?: string;
}

/**
 * The posts of one user, main or part-time (SPEC §3 "user post"), opened from the user list:
 * the user's sysuserpost rows, with a form that adds one and a delete per row.
 */
export default function UserPosts({ record }: RecordScreenProps) {
  const t = useT();
  const { message } = App.useApp();
  const can = useCanButton('sysuser');
  const userId = Number(record.id);
  const [form] = Form.useForm<NewPost>();
  const posts = useApiGet<PostNode[]>(`${API.post}/querySysPostTree`);
  const { options, names } = useMemo(() => {
    const map = new Map<number, string>();
    return { options: toOptions(posts.data ?? [], map), names: map };
  }, [posts.data]);
  const { result, query } = useList<BaseRecord>({
    resource: 'sysuserpost',
    pagination: { mode: 'off' },
    filters: [{ field: 'userId', operator: 'eq', value: userId }],
  });
  const { mutateAsync: create, mutation: creation } = useCreate();
  const { mutateAsync: remove } = useDelete();

  const add = async (values: NewPost): Promise<void> => {
    try {
      await create({
        resource: 'sysuserpost',
        values: { ...values, userId },
        successNotification: false,
      });
      void message.success(t('admin.common.saved'));
      form.resetFields();
    } catch (error) {
      const fields = (error as Partial<HttpError>).errors ?? {};
      const known = ['postId', 'postType', 'postDescription'].filter((name) => name in fields);
      form.setFields(known.map((name) => ({ name: name as keyof NewPost, errors: [String(fields[name])] })));
      if (known.length === 0) void message.error(errorText(error));
    }
  };

  const drop = async (row: BaseRecord): Promise<void> => {
    if (row.id === undefined) return;
    try {
      await remove({ resource: 'sysuserpost', id: row.id, successNotification: false });
      void message.success(t('admin.common.deleted'));
    } catch (error) {
      void message.error(errorText(error));
    }
  };

  return (
    <div data-testid="user-posts">
      <p>
        <strong>{String(record.username ?? '')}</strong> {String(record.nickname ?? '')}
      </p>
      <Table<BaseRecord>
        size="small"
        rowKey={(row) => String(row.id)}
        loading={query.isLoading || posts.isLoading}
        dataSource={result.data}
        pagination={false}
        columns={[
          {
            key: 'postId',
            title: fieldTitle(t, 'sysuserpost', 'postId'),
            render: (_value, row) => names.get(Number(row.postId)) ?? String(row.postId ?? ''),
          },
          {
            key: 'postType',
            title: fieldTitle(t, 'sysuserpost', 'postType'),
            render: (_value, row) => (
              <Tag color={row.postType === 'main' ? 'blue' : undefined}>
                {t(`dicts.post_type.${String(row.postType)}`, { defaultValue: String(row.postType) })}
              </Tag>
            ),
          },
          {
            key: 'postDescription',
            dataIndex: 'postDescription',
            title: fieldTitle(t, 'sysuserpost', 'postDescription'),
            ellipsis: true,
          },
          {
            key: 'actions',
            width: 64,
            render: (_value, row) =>
              can('update') ? (
                <Popconfirm
                  title={t('admin.common.deleteConfirm')}
                  onConfirm={() => drop(row)}
                  okText={t('admin.common.confirm')}
                  cancelText={t('admin.common.cancel')}
                >
                  <Button
                    type="text"
                    danger
                    icon={<DeleteOutlined />}
                    aria-label={t('admin.common.delete')}
                  />
                </Popconfirm>
              ) : null,
          },
        ]}
      />
      {can('update') && (
        <Form<NewPost>
          form={form}
          layout="vertical"
          initialValues={{ postType: 'main' }}
          onFinish={(values) => void add(values)}
          className="admin-screen-form"
          data-testid="user-post-form"
        >
          <Form.Item
            name="postId"
            label={fieldTitle(t, 'sysuserpost', 'postId')}
            rules={[{ required: true, message: t('admin.screens.userPosts.postRequired') }]}
          >
            <TreeSelect treeData={options} treeDefaultExpandAll showSearch treeNodeFilterProp="title" />
          </Form.Item>
          <Form.Item name="postType" label={fieldTitle(t, 'sysuserpost', 'postType')}>
            <Radio.Group
              options={POST_TYPES.map((value) => ({ value, label: t(`dicts.post_type.${value}`) }))}
            />
          </Form.Item>
          <Form.Item name="postDescription" label={fieldTitle(t, 'sysuserpost', 'postDescription')}>
            <Input maxLength={255} />
          </Form.Item>
          <Button type="primary" htmlType="submit" loading={creation.isPending} data-testid="user-post-add">
            {t('admin.screens.userPosts.add')}
          </Button>
        </Form>
      )}
    </div>
  );
}
