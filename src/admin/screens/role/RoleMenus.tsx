import { App, Tree, type TreeDataNode } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useT, type Translate } from '../../i18n.js';
import type { MenuNode } from '../../lib/menus.js';
import { useApiGet, useApiWrite } from '../api.js';
import { API, errorText, Loading, menuTitle, SaveBar, treeKeys } from '../common.js';
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
 * The menus a role may open (SPEC §6): the whole menu tree, ticked where granted. Saving grants
 * the ticked menus with their ancestors; SPEC §5: authorization needs ticked data.
 */
export function RoleMenus({ roleId, canSave }: { roleId: number; canSave: boolean }) {
  const t = useT();
  const { message } = App.useApp();
  const tree = useApiGet<MenuNode[]>(`${API.menu}/querySysMenuTree`);
  const granted = useApiGet<number[]>(`${API.menu}/queryMenuIdByRoleId`, { roleId });
  const [checked, setChecked] = useState<string[] | undefined>(undefined);
  const { send, isSending } = useApiWrite();
  const nodes = useMemo(() => tree.data ?? [], [tree.data]);
  useEffect(() => {
    if (checked === undefined && tree.data && granted.data) {
      setChecked(tickedIds(tree.data, new Set(granted.data)).map(String));
    }
  }, [tree.data, granted.data, checked]);
  const treeData = useMemo(() => toTreeData(t, nodes), [t, nodes]);
  const allKeys = useMemo(() => treeKeys(nodes, (node) => String(node.id)), [nodes]);

  const save = async (): Promise<void> => {
    const menuIds = withAncestors(nodes, new Set((checked ?? []).map(Number)));
    if (menuIds.length === 0) {
      void message.warning(t('admin.screens.role.menusRequired'));
      return;
    }
    try {
      await send('post', `${API.menu}/authorizeMenuToRole`, { roleId, menuIds });
      void message.success(t('admin.common.operateSuccess'));
    } catch (error) {
      void message.error(errorText(error));
    }
  };

  return (
    <div data-testid="role-menus">
      <Loading isLoading={tree.isLoading || granted.isLoading || checked === undefined}>
        <Tree
          checkable
          selectable={false}
          defaultExpandedKeys={allKeys}
          treeData={treeData}
          checkedKeys={checked}
          onCheck={(keys) => setChecked((Array.isArray(keys) ? keys : keys.checked).map(String))}
          className="admin-screen-tree"
        />
      </Loading>
      <SaveBar
        t={t}
        canSave={canSave}
        isSaving={isSending}
        onSave={() => void save()}
        testId="role-menus-save"
      />
    </div>
  );
}
