/** camelCase field name to snake_case column name: orgParent -> org_parent. */
export function toColumnName(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** sysmenu -> querySysMenuTree, category -> querySysCategoryTree: the tree endpoint name of docs/http-contract.md. */
export function treeEndpointName(entityName: string): string {
  const bare = entityName.replace(/^sys/, '');
  return `querySys${bare.charAt(0).toUpperCase()}${bare.slice(1)}Tree`;
}

/** Identifiers that reach SQL come from schemas only, and must look like this. */
export const SQL_IDENTIFIER = /^[a-z][a-z0-9_]{0,62}$/;

export function quoteIdentifier(name: string): string {
  if (!SQL_IDENTIFIER.test(name)) throw new Error(`Not a safe SQL identifier: ${name}`);
  return `"${name}"`;
}
