import { App, Input, type TreeDataNode } from 'antd';
import { useMemo, useState } from 'react';
import { useT } from '../../../i18n.js';
import { useApiGet, useApiWrite } from '../../../lib/api.js';
import { API, CheckTree, SavePanel, useDraft, useSubmit } from '../../../lib/screen-parts.js';
import type { OrgUserNode } from '../../../../engine/api-types.js';
import { filterTree, orgKeys, users } from './orgUserTree.js';

const TREE_HEIGHT = 460;

function toTreeData(nodes: readonly OrgUserNode[], mainRoleTitle: string): TreeDataNode[] {
  return nodes.map((node) =>
    node.type === 'user'
      ? {
          key: node.key,
          isLeaf: true,
          // The role is this user's own role: it stays whatever is ticked here.
          disableCheckbox: node.isMainRole,
          title: (
            <span data-username={node.username}>
              {node.title}
              {node.title !== node.username && <span className="admin-muted"> {node.username}</span>}
              {node.isMainRole && <span className="admin-muted"> · {mainRoleTitle}</span>}
            </span>
          ),
        }
      : { key: node.key, title: node.title, children: toTreeData(node.children, mainRoleTitle) },
  );
}

/**
 * Assigns users to a role (docs/product.md §6 "assigning users"): the organisation tree with its users
 * (queryOrgUserTree?roleId), ticked when they hold the role. Users whose own role it is cannot
 * be unticked. docs/product.md §5: the selected user list must not be empty.
 */
export function RoleUsers({ roleId, canSave }: { roleId: number; canSave: boolean }) {
  const t = useT();
  const { message } = App.useApp();
  const tree = useApiGet<OrgUserNode[]>(`${API.org}/queryOrgUserTree`, { roleId });
  const held = useMemo(
    () => (tree.data ? users(tree.data).flatMap((user) => (user.checked ? [user.key] : [])) : undefined),
    [tree.data],
  );
  const [checked, setChecked] = useDraft(held);
  const [search, setSearch] = useState('');
  // Every organisation is open until the user folds one; a new search opens them again.
  const [folded, setFolded] = useState<{ search: string; keys: string[] } | undefined>(undefined);
  const { send, isSending } = useApiWrite();
  const submit = useSubmit();
  const all = useMemo(() => users(tree.data ?? []), [tree.data]);
  const shown = useMemo(() => filterTree(tree.data ?? [], search), [tree.data, search]);
  const treeData = useMemo(() => toTreeData(shown, t('admin.screens.role.mainRole')), [shown, t]);
  const expanded = useMemo(() => orgKeys(shown), [shown]);

  const ticked = new Set(checked ?? []);
  const save = async (): Promise<void> => {
    const userIds = all.filter((user) => ticked.has(user.key) && !user.isMainRole).map((user) => user.id);
    if (userIds.length === 0) {
      void message.warning(t('admin.screens.role.usersRequired'));
      return;
    }
    await submit(() => send('post', `${API.role}/authorizeUserToRole`, { roleId, userIds }));
  };

  return (
    <SavePanel
      testId="role-users"
      top={
        <Input.Search
          allowClear
          placeholder={t('admin.screens.role.searchUser')}
          onChange={(event) => setSearch(event.target.value)}
          className="admin-screen-search"
        />
      }
      isLoading={tree.isLoading || checked === undefined}
      canSave={canSave}
      isSaving={isSending}
      onSave={() => void save()}
      hint={t('admin.screens.selectedCount', { count: all.filter((user) => ticked.has(user.key)).length })}
    >
      <CheckTree
        height={TREE_HEIGHT}
        expandedKeys={folded?.search === search ? folded.keys : expanded}
        onExpand={(keys) => setFolded({ search, keys: keys.map(String) })}
        treeData={treeData}
        checkedKeys={checked}
        onChecked={(keys) => {
          const next = new Set(keys);
          // Users hidden by the search keep their ticks; organisations are not stored.
          const visible = new Set(users(shown).map((user) => user.key));
          setChecked(
            all
              .filter((user) => (visible.has(user.key) ? next.has(user.key) : ticked.has(user.key)))
              .map((user) => user.key),
          );
        }}
      />
    </SavePanel>
  );
}
