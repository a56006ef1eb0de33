import { Input, Tree, type TreeDataNode } from 'antd';
import { useMemo, useState } from 'react';
import type { RecordScreenProps } from '../../../entity/record-screen.js';
import { useT } from '../../../i18n.js';
import { useApiGet } from '../../../lib/api.js';
import { API, Loading } from '../../../lib/screen-parts.js';
import type { OrgUserNode } from '../../../../engine/api-types.js';
import { filterTree, orgKeys, users } from '../role/orgUserTree.js';

function find(nodes: readonly OrgUserNode[], key: string): OrgUserNode | undefined {
  for (const node of nodes) {
    if (node.key === key) return node;
    if (node.type === 'org') {
      const found = find(node.children, key);
      if (found) return found;
    }
  }
  return undefined;
}

function toTreeData(nodes: readonly OrgUserNode[]): TreeDataNode[] {
  return nodes.map((node) =>
    node.type === 'user'
      ? {
          key: node.key,
          isLeaf: true,
          title: (
            <span data-username={node.username}>
              {node.title}
              {node.title !== node.username && <span className="admin-muted"> {node.username}</span>}
            </span>
          ),
        }
      : { key: node.key, title: <strong>{node.title}</strong>, children: toTreeData(node.children) },
  );
}

/**
 * One organisation with its sub-organisations and their users (docs/product.md §2.3 "org tree with its
 * users", queryOrgUserTree), opened from the organisation list.
 */
export default function OrgUsers({ record }: RecordScreenProps) {
  const t = useT();
  const tree = useApiGet<OrgUserNode[]>(`${API.org}/queryOrgUserTree`);
  const root = useMemo(() => find(tree.data ?? [], `org-${String(record.id)}`), [tree.data, record.id]);
  const nodes = useMemo(() => (root ? [root] : []), [root]);
  // A large organisation scrolls (the tree draws only what is in view): the search finds a person.
  const [search, setSearch] = useState('');
  const shown = useMemo(() => filterTree(nodes, search), [nodes, search]);
  const treeData = useMemo(() => toTreeData(shown), [shown]);
  return (
    <div data-testid="org-users">
      <Loading isLoading={tree.isLoading} isEmpty={!root}>
        <p className="admin-muted">{t('admin.screens.orgUsers.count', { count: users(nodes).length })}</p>
        <Input.Search
          allowClear
          placeholder={t('admin.screens.role.searchUser')}
          onChange={(event) => setSearch(event.target.value)}
          className="admin-screen-search"
          data-testid="org-users-search"
        />
        <Tree
          key={search}
          selectable={false}
          defaultExpandedKeys={orgKeys(shown)}
          treeData={treeData}
          height={520}
          className="admin-screen-tree"
        />
      </Loading>
    </div>
  );
}
