import { TreeSelect } from 'antd';
import { useMemo } from 'react';
import type { OrgUserNode } from '../../../engine/api-types.js';
import { useApiGet } from '../../lib/api.js';

/** The tenant's organisations with their users, readable by every signed-in user. */
export const PEOPLE_TREE_API = '/api/activiti/people/tree';

export interface UserTreeOption {
  value: string;
  title: string;
  selectable?: boolean;
  children?: UserTreeOption[];
}

/** The org-user tree as TreeSelect options: users by user name, organisations only to open. */
export function userOptions(nodes: readonly OrgUserNode[]): UserTreeOption[] {
  return nodes.map((node) =>
    node.type === 'user'
      ? {
          value: node.username,
          title: node.title === node.username ? node.username : `${node.title}（${node.username}）`,
        }
      : {
          value: `org-node:${node.id}`,
          title: node.title,
          selectable: false,
          children: userOptions(node.children),
        },
  );
}

/** The organisations of the tree (candidate groups "org:N"). */
export function orgOptions(nodes: readonly OrgUserNode[]): { value: string; label: string }[] {
  return nodes.flatMap((node) =>
    node.type === 'org' ? [{ value: `org:${node.id}`, label: node.title }, ...orgOptions(node.children)] : [],
  );
}

export function usePeopleTree(): OrgUserNode[] | undefined {
  return useApiGet<OrgUserNode[]>(PEOPLE_TREE_API).data;
}

type Single = { multiple?: false; value?: string; onChange?: (value: string | undefined) => void };
type Multiple = { multiple: true; value?: string[]; onChange?: (value: string[]) => void };

/**
 * One user (or several) picked on the org-user tree, searchable by name: the modeler's assignee
 * and candidate users, and the office's candidate, delegate and assign dialogs. `extra` options
 * (the starter, an expression) come before the tree. Works as an antd Form control.
 */
export function UserTreeSelect(
  props: (Single | Multiple) & {
    id?: string;
    placeholder?: string;
    extra?: readonly UserTreeOption[];
    popupClassName?: string;
    'data-testid'?: string;
    'aria-label'?: string;
  },
) {
  const tree = usePeopleTree();
  const users = useMemo(() => [...(props.extra ?? []), ...userOptions(tree ?? [])], [tree, props.extra]);
  const common = {
    id: props.id,
    allowClear: true,
    showSearch: true,
    treeNodeFilterProp: 'title',
    treeDefaultExpandAll: true,
    treeData: users,
    placeholder: props.placeholder,
    popupClassName: props.popupClassName,
    'data-testid': props['data-testid'],
    'aria-label': props['aria-label'],
  };
  if (props.multiple)
    return (
      <TreeSelect
        {...common}
        multiple
        value={props.value ?? []}
        onChange={(next: string[]) => props.onChange?.(next)}
      />
    );
  return (
    <TreeSelect
      {...common}
      value={props.value || undefined}
      onChange={(next?: string) => props.onChange?.(next || undefined)}
    />
  );
}
