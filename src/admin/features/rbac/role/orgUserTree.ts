/** Pure helpers over the org-user tree of GET …/sysorg/queryOrgUserTree. */
import type { OrgUserNode, UserLeaf } from '../../../../engine/api-types.js';

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
