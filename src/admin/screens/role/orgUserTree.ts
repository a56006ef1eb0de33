/** The org-user tree of GET …/sysorg/queryOrgUserTree and pure helpers over it. */

export interface OrgNode {
  key: string;
  type: 'org';
  id: number;
  title: string;
  children: OrgUserNode[];
}

export interface UserLeaf {
  key: string;
  type: 'user';
  id: number;
  title: string;
  username: string;
  nickname: string | null;
  /** Holds the role (queryOrgUserTree?roleId). */
  checked: boolean;
  /** The role is the user's own role (sysuser.roleId), which the role's user list cannot take away. */
  isMainRole: boolean;
}

export type OrgUserNode = OrgNode | UserLeaf;

export function users(nodes: readonly OrgUserNode[]): UserLeaf[] {
  return nodes.flatMap((node) => (node.type === 'user' ? [node] : users(node.children)));
}

/** The tree keeping the users whose name matches (and the organisations leading to them). */
export function filterTree(nodes: readonly OrgUserNode[], search: string): OrgUserNode[] {
  const text = search.trim().toLowerCase();
  if (!text) return [...nodes];
  return nodes.flatMap((node): OrgUserNode[] => {
    if (node.type === 'user') {
      const isMatch = [node.username, node.nickname ?? '', node.title].some((value) =>
        value.toLowerCase().includes(text),
      );
      return isMatch ? [node] : [];
    }
    if (node.title.toLowerCase().includes(text)) return [node];
    const children = filterTree(node.children, text);
    return children.length > 0 ? [{ ...node, children }] : [];
  });
}

/** Keys of the organisations, to expand them all. */
export function orgKeys(nodes: readonly OrgUserNode[]): string[] {
  return nodes.flatMap((node) => (node.type === 'org' ? [node.key, ...orgKeys(node.children)] : []));
}
