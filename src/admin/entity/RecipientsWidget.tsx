import type { WidgetProps } from '@rjsf/utils';
import { App, Select, TreeSelect } from 'antd';
import { useMemo, useState } from 'react';
import type { OrgUserNode } from '../../engine/index.js';
import { useApiCall } from '../providers/api.js';
import { useApiGet } from '../lib/api.js';
import { users } from '../features/rbac/role/orgUserTree.js';
import { useT } from '../i18n.js';
import { stringOptions, useDebouncedSearch, useRefOptions } from './options.js';
import { useResources } from './resources.js';

/**
 * x-ui.widget "recipients": the users a record goes to (an array of user ids; empty = all
 * users), picked on the organisation–user tree of the tenant (queryOrgUserTree: ticking an
 * organisation takes its users) or by role (the role's users are added). Chosen users show by
 * name; an empty choice reads 「全部用户」.
 */

interface TreeNode {
  value: string;
  title: string;
  children?: TreeNode[];
  isLeaf?: boolean;
  disableCheckbox?: boolean;
}

const USER_PREFIX = 'user-';
// inline: a select in a form item is otherwise stretched to the full row
const ROLE_SELECT_STYLE = { width: 260, flex: 'none' } as const;

function nameOf(user: { title: string; username: string }): string {
  return user.title === user.username ? user.title : `${user.title} (${user.username})`;
}

function toTreeData(nodes: readonly OrgUserNode[]): TreeNode[] {
  return nodes.map((node) => {
    if (node.type === 'user') return { value: node.key, title: nameOf(node), isLeaf: true };
    const children = toTreeData(node.children);
    // An organisation without users has nothing to tick.
    return {
      value: node.key,
      title: node.title,
      children,
      disableCheckbox: users(node.children).length === 0,
    };
  });
}

function idsOf(value: unknown): number[] {
  return Array.isArray(value) ? value.filter((item): item is number => typeof item === 'number') : [];
}

export function RecipientsWidget(props: WidgetProps) {
  const t = useT();
  const { message } = App.useApp();
  const call = useApiCall();
  const orgBase = useResources()?.get('sysorg')?.base ?? 'admin/sysorg';
  const treeUrl = `/api/${orgBase}/queryOrgUserTree`;
  const tree = useApiGet<OrgUserNode[]>(treeUrl);
  const [roleSearch, setRoleSearch] = useDebouncedSearch();
  const roles = stringOptions(useRefOptions('sysrole', roleSearch, []));
  const [isAdding, setAdding] = useState(false);
  const treeData = useMemo(() => toTreeData(tree.data ?? []), [tree.data]);
  const chosen = idsOf(props.value);
  const disabled = props.disabled || props.readonly;

  const commit = (ids: readonly number[]): void => {
    const next = [...new Set(ids)];
    props.onChange(next);
    setTimeout(() => props.onBlur(props.id, next), 0);
  };

  const addRole = async (roleId: string): Promise<void> => {
    setAdding(true);
    try {
      const holders = await call<OrgUserNode[]>({
        method: 'get',
        url: treeUrl,
        query: { roleId, assign: 'true' },
      });
      const added = users(holders).map((user) => user.id);
      commit([...chosen, ...added]);
      const role = roles.find((option) => option.value === roleId)?.label ?? roleId;
      void message.success(t('admin.form.recipients.roleAdded', { role, count: added.length }));
    } finally {
      setAdding(false);
    }
  };

  const roleLabel = t('admin.form.recipients.byRole');
  return (
    <div className="entity-form-recipients" data-testid={`recipients-${props.name}`}>
      <TreeSelect<string[]>
        id={props.id}
        style={{ width: '100%' }}
        disabled={disabled}
        loading={tree.isLoading}
        treeData={treeData}
        treeCheckable
        showCheckedStrategy={TreeSelect.SHOW_CHILD}
        treeDefaultExpandAll
        showSearch
        treeNodeFilterProp="title"
        allowClear
        maxTagCount="responsive"
        placeholder={t('admin.form.recipients.all')}
        value={chosen.map((id) => `${USER_PREFIX}${id}`)}
        onChange={(keys) =>
          commit(
            (keys ?? [])
              .filter((key) => key.startsWith(USER_PREFIX))
              .map((key) => Number(key.slice(USER_PREFIX.length))),
          )
        }
      />
      <div className="entity-form-recipients-bar">
        <Select
          aria-label={roleLabel}
          className="entity-form-recipients-role"
          style={ROLE_SELECT_STYLE}
          disabled={disabled || isAdding}
          loading={isAdding}
          showSearch
          filterOption={false}
          onSearch={setRoleSearch}
          options={roles}
          placeholder={roleLabel}
          value={null}
          onChange={(roleId: string | null) => {
            if (roleId) void addRole(roleId);
          }}
        />
        <span className="admin-muted" data-testid="recipients-summary">
          {chosen.length === 0
            ? t('admin.form.recipients.all')
            : t('admin.form.recipients.count', { count: chosen.length })}
        </span>
      </div>
    </div>
  );
}
