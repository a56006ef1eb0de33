import { App, type TreeDataNode } from 'antd';
import { useMemo } from 'react';
import { useT, type Translate } from '../../../i18n.js';
import type { MenuNode } from '../../../../engine/api-types.js';
import { useApiGet, useApiWrite, useTree } from '../../../lib/api.js';
import {
  API,
  CheckTree,
  menuTitle,
  SavePanel,
  treeKeys,
  useDraft,
  useSubmit,
} from '../../../lib/screen-parts.js';
import { tickedIds, withAncestors } from './menuTree.js';

function toTreeData(t: Translate, nodes: readonly MenuNode[]): TreeDataNode[] {
  return nodes.map((node) => ({
    key: String(node.id),
    title: (
      <span data-menu-code={node.menuCode}>
        {menuTitle(t, node)} <span className="admin-muted">{node.menuPath}</span>
      </span>
    ),
    children: toTreeData(t, node.children ?? []),
  }));
}

/**
 * The menus a role may open (docs/product.md §6): the whole menu tree, ticked where granted. Saving grants
 * the ticked menus with their ancestors; docs/product.md §5: authorization needs ticked data.
 */
export function RoleMenus({ roleId, canSave }: { roleId: number; canSave: boolean }) {
  const t = useT();
  const { message } = App.useApp();
  const tree = useTree<MenuNode>('sysmenu');
  const granted = useApiGet<number[]>(`${API.menu}/queryMenuIdByRoleId`, { roleId });
  const ticked = useMemo(
    () => (tree.data && granted.data ? tickedIds(tree.data, new Set(granted.data)).map(String) : undefined),
    [tree.data, granted.data],
  );
  const [checked, setChecked] = useDraft(ticked);
  const { send, isSending } = useApiWrite();
  const submit = useSubmit();
  const nodes = useMemo(() => tree.data ?? [], [tree.data]);
  const treeData = useMemo(() => toTreeData(t, nodes), [t, nodes]);
  const allKeys = useMemo(() => treeKeys(nodes, (node) => String(node.id)), [nodes]);

  const save = async (): Promise<void> => {
    const menuIds = withAncestors(nodes, new Set((checked ?? []).map(Number)));
    if (menuIds.length === 0) {
      void message.warning(t('admin.screens.role.menusRequired'));
      return;
    }
    await submit(() => send('post', `${API.menu}/authorizeMenuToRole`, { roleId, menuIds }));
  };

  return (
    <SavePanel
      testId="role-menus"
      isLoading={tree.isLoading || granted.isLoading || checked === undefined}
      canSave={canSave}
      isSaving={isSending}
      onSave={() => void save()}
    >
      <CheckTree
        defaultExpandedKeys={allKeys}
        treeData={treeData}
        checkedKeys={checked}
        onChecked={setChecked}
      />
    </SavePanel>
  );
}
