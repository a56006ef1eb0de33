import type { TreeDataNode } from 'antd';
import { useMemo } from 'react';
import { useT, type Translate } from '../../../i18n.js';
import type { MenuNode } from '../../../../engine/api-types.js';
import { useApiGet, useApiWrite } from '../../../lib/api.js';
import {
  API,
  CheckTree,
  menuTitle,
  SavePanel,
  treeKeys,
  useDraft,
  useSubmit,
} from '../../../lib/screen-parts.js';

/** Menu nodes are keyed menu/<code>, buttons <menuCode>:<button> as the API names them. */
const MENU_PREFIX = 'menu/';

/** The menus that have buttons (or descendants with buttons), buttons as their first children. */
export function buttonTree(t: Translate, nodes: readonly MenuNode[]): TreeDataNode[] {
  return nodes.flatMap((node): TreeDataNode[] => {
    const buttons = (node.menuButton ?? []).map((button) => ({
      key: `${node.menuCode}:${button}`,
      title: (
        <span data-button-key={`${node.menuCode}:${button}`}>
          {t(`dicts.menu_button.${button}`, { defaultValue: button })}
        </span>
      ),
      isLeaf: true,
    }));
    const children = [...buttons, ...buttonTree(t, node.children ?? [])];
    if (children.length === 0) return [];
    return [
      {
        key: `${MENU_PREFIX}${node.menuCode}`,
        title: <span data-menu-code={node.menuCode}>{menuTitle(t, node)}</span>,
        children,
      },
    ];
  });
}

/**
 * The buttons a role may use on each screen (docs/product.md §6, buttons): out of the buttons each
 * menu has, ticked where granted.
 */
export function RoleButtons({ roleCode, canSave }: { roleCode: string; canSave: boolean }) {
  const t = useT();
  const tree = useApiGet<MenuNode[]>(`${API.menu}/querySysMenuButtonTree`);
  const granted = useApiGet<string[]>(`${API.menu}/queryMenuButtonByRoleCode`, { roleCode });
  const [checked, setChecked] = useDraft(granted.data);
  const { send, isSending } = useApiWrite();
  const submit = useSubmit();
  const treeData = useMemo(() => buttonTree(t, tree.data ?? []), [t, tree.data]);
  const menuKeys = useMemo(
    () => treeKeys(treeData, (node) => String(node.key)).filter((key) => key.startsWith(MENU_PREFIX)),
    [treeData],
  );

  const save = async (): Promise<void> => {
    const buttons = (checked ?? []).filter((key) => !key.startsWith(MENU_PREFIX));
    await submit(() => send('post', `${API.menu}/authorizeMenuButtonToRole`, { roleCode, buttons }));
  };

  return (
    <SavePanel
      testId="role-buttons"
      isLoading={tree.isLoading || granted.isLoading || checked === undefined}
      canSave={canSave}
      isSaving={isSending}
      onSave={() => void save()}
    >
      <CheckTree
        defaultExpandedKeys={menuKeys}
        treeData={treeData}
        checkedKeys={checked}
        onChecked={setChecked}
      />
    </SavePanel>
  );
}
