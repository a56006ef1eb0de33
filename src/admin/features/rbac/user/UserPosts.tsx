import { Checkbox, Input, Radio, Table } from 'antd';
import { useMemo } from 'react';
import type { PostType, UserPostNode } from '../../../../engine/api-types.js';
import type { RecordScreenProps } from '../../../entity/record-screen.js';
import { useT } from '../../../i18n.js';
import { useApiGet, useApiWrite, useCanButton } from '../../../lib/api.js';
import { API, fieldTitle, SavePanel, treeKeys, useDraft, useSubmit } from '../../../lib/screen-parts.js';

interface Held {
  postType: PostType;
  postDescription: string;
}

const POST_TYPES: readonly PostType[] = ['main', 'parttime'];

function heldOf(nodes: readonly UserPostNode[], into = new Map<number, Held>()): Map<number, Held> {
  for (const node of nodes) {
    if (node.checked) {
      into.set(node.id, { postType: node.postType ?? 'main', postDescription: node.postDescription ?? '' });
    }
    heldOf(node.children ?? [], into);
  }
  return into;
}

/**
 * The posts of one user, main or part-time (docs/product.md §3 "user post"), opened from the user list:
 * the post tree with the user's posts ticked (querySysUserPostTree), saved in one go
 * (authorizePostToUser). A newly ticked post is the main post when the user has none yet.
 */
export default function UserPosts({ record, onClose }: RecordScreenProps) {
  const t = useT();
  const can = useCanButton('sysuser');
  const userId = Number(record.id);
  const tree = useApiGet<UserPostNode[]>(`${API.userPost}/querySysUserPostTree`, { userId });
  const stored = useMemo(() => (tree.data ? heldOf(tree.data) : undefined), [tree.data]);
  const [held, setHeld] = useDraft(stored);
  const { send, isSending } = useApiWrite();
  const submit = useSubmit();
  const expanded = useMemo(() => treeKeys(tree.data ?? [], (node) => String(node.id)), [tree.data]);
  const isEditable = can('update');

  const change = (postId: number, next: Held | undefined): void => {
    setHeld((current) => {
      const copy = new Map(current);
      if (next) copy.set(postId, next);
      else copy.delete(postId);
      return copy;
    });
  };
  const tick = (postId: number, isTicked: boolean): void => {
    const hasMain = [...(held?.values() ?? [])].some((item) => item.postType === 'main');
    change(postId, isTicked ? { postType: hasMain ? 'parttime' : 'main', postDescription: '' } : undefined);
  };

  const save = async (): Promise<void> => {
    const posts = [...(held ?? new Map<number, Held>())].map(([postId, item]) => ({
      postId,
      postType: item.postType,
      ...(item.postDescription.trim() ? { postDescription: item.postDescription.trim() } : {}),
    }));
    await submit(() => send('post', `${API.userPost}/authorizePostToUser`, { userId, posts }), {
      success: t('admin.crud.saved'),
      after: () => onClose(false),
    });
  };

  return (
    <SavePanel
      testId="user-posts"
      top={
        <p>
          <strong>{String(record.username ?? '')}</strong> {String(record.nickname ?? '')}
        </p>
      }
      isLoading={tree.isLoading || held === undefined}
      isEmpty={tree.data?.length === 0}
      canSave={isEditable}
      isSaving={isSending}
      onSave={() => void save()}
      hint={t('admin.screens.selectedCount', { count: held?.size ?? 0 })}
    >
      <Table<UserPostNode>
        size="small"
        rowKey={(node) => String(node.id)}
        dataSource={tree.data ?? []}
        pagination={false}
        expandable={{ defaultExpandedRowKeys: expanded }}
        columns={[
          {
            key: 'postName',
            title: t('entities.syspost.fields.postName', { defaultValue: 'Post' }),
            render: (_value, node) => (
              <Checkbox
                checked={held?.has(node.id)}
                disabled={!isEditable}
                onChange={(event) => tick(node.id, event.target.checked)}
                data-post-code={node.postCode}
              >
                {node.postName}
              </Checkbox>
            ),
          },
          {
            key: 'postType',
            title: fieldTitle(t, 'sysuserpost', 'postType'),
            render: (_value, node) => {
              const item = held?.get(node.id);
              return item ? (
                <Radio.Group
                  size="small"
                  value={item.postType}
                  disabled={!isEditable}
                  onChange={(event) => change(node.id, { ...item, postType: event.target.value as PostType })}
                  options={POST_TYPES.map((value) => ({ value, label: t(`dicts.post_type.${value}`) }))}
                />
              ) : null;
            },
          },
          {
            key: 'postDescription',
            title: fieldTitle(t, 'sysuserpost', 'postDescription'),
            render: (_value, node) => {
              const item = held?.get(node.id);
              return item ? (
                <Input
                  size="small"
                  maxLength={255}
                  value={item.postDescription}
                  disabled={!isEditable}
                  onChange={(event) => change(node.id, { ...item, postDescription: event.target.value })}
                />
              ) : null;
            },
          },
        ]}
      />
    </SavePanel>
  );
}
