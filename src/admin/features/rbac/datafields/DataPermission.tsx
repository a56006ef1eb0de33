import { Card, Col, Empty, Input, Row, Tree, type TreeDataNode } from 'antd';
import { useMemo, useState } from 'react';
import { routeTitle, useT, type Translate } from '../../../i18n.js';
import type { MenuNode } from '../../../../engine/api-types.js';
import type { AppRoute } from '../../../lib/menus.js';
import { useCanButton, useTree } from '../../../lib/api.js';
import { Loading, menuTitle, treeKeys } from '../../../lib/screen-parts.js';
import { DataFieldEditor } from './DataFieldEditor.js';
import { menuEntity } from '../menu/MenuAuthority.js';

/** Menus as a tree where only generated screens (which have data fields) can be selected. */
function toTreeData(t: Translate, nodes: readonly MenuNode[], search: string): TreeDataNode[] {
  return nodes.flatMap((node): TreeDataNode[] => {
    const children = toTreeData(t, node.children ?? [], search);
    const entity = menuEntity(node.menuComponent);
    const title = menuTitle(t, node);
    const isMatch = !search || title.toLowerCase().includes(search) || node.menuCode.includes(search);
    if (children.length === 0 && !(entity && isMatch)) return [];
    return [{ key: entity ?? `group/${node.id}`, title, selectable: entity !== undefined, children }];
  });
}

/**
 * Data permissions (docs/product.md §2.3 authority/datapermission): pick a generated screen's menu, then
 * edit, per role code, the fields hidden from that role on that screen, its exports and forms.
 */
export default function DataPermission({ route }: { route: AppRoute }) {
  const t = useT();
  const can = useCanButton(route.code);
  const tree = useTree<MenuNode>('sysmenu');
  const [search, setSearch] = useState('');
  const [entity, setEntity] = useState<string | undefined>(undefined);
  const treeData = useMemo(() => toTreeData(t, tree.data ?? [], search), [t, tree.data, search]);
  const expanded = useMemo(() => treeKeys(treeData, (node) => String(node.key)), [treeData]);

  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <Row gutter={16} data-testid="data-permission">
        <Col xs={24} md={8}>
          <Input.Search
            allowClear
            placeholder={t('admin.screens.dataFields.searchMenu')}
            onChange={(event) => setSearch(event.target.value.trim().toLowerCase())}
            className="admin-screen-search"
          />
          <Loading isLoading={tree.isLoading}>
            <Tree
              treeData={treeData}
              expandedKeys={expanded}
              selectedKeys={entity ? [entity] : []}
              onSelect={(keys) => setEntity(keys[0] === undefined ? undefined : String(keys[0]))}
              className="admin-screen-tree"
              data-testid="data-permission-menus"
            />
          </Loading>
        </Col>
        <Col xs={24} md={16}>
          {entity ? (
            <DataFieldEditor
              key={entity}
              menuCode={entity}
              entity={entity}
              permissions={{
                canAdd: can('add'),
                canSave: can('add') || can('update'),
                canDelete: can('delete'),
              }}
            />
          ) : (
            <Empty description={t('admin.screens.dataFields.pickMenu')} />
          )}
        </Col>
      </Row>
    </Card>
  );
}
