import type { BaseRecord, HttpError } from '@refinedev/core';
import { Alert, Input, Select, Table, TreeSelect, Typography, type TreeSelectProps } from 'antd';
import { useMemo, useState } from 'react';
import { DATA_SCOPES, type DataScope, type DataScopeSetting } from '../../../../engine/row-scope.js';
import { useT } from '../../../i18n.js';
import { entityTitle } from '../../../entity/labels.js';
import { useResources } from '../../../entity/resources.js';
import { useApiGet, useApiWrite, useTree } from '../../../lib/api.js';
import { fieldMessages } from '../../../providers/data.js';
import { API, SavePanel, useDraft, useSubmit } from '../../../lib/screen-parts.js';

interface ScopeDraft {
  scope: DataScope;
  orgIds: number[];
  condition: string;
}

type OrgTree = NonNullable<TreeSelectProps['treeData']>;

function orgTreeData(nodes: readonly BaseRecord[]): OrgTree {
  return nodes.map((node) => ({
    value: Number(node.id),
    title: String(node.orgName ?? node.id),
    children: orgTreeData(Array.isArray(node.children) ? (node.children as BaseRecord[]) : []),
  }));
}

/**
 * The row data scopes of a role (数据范围, issue 32): per entity of the tenant, which records the
 * role sees and changes: all (the default), its organisation, its organisation and below, its own
 * records, chosen organisations, or a condition. Saved together; the server refuses a condition
 * it cannot read naming its row (/rows/<i>/condition), shown under that row.
 */
export function RoleScopes({ roleId, canSave }: { roleId: number; canSave: boolean }) {
  const t = useT();
  const resources = useResources();
  const stored = useApiGet<DataScopeSetting[]>(`${API.role}/queryDataScopeByRoleId`, { roleId });
  const orgs = useTree<BaseRecord>('sysorg');
  const loaded = useMemo(() => {
    if (!stored.data) return undefined;
    const drafts: Record<string, ScopeDraft> = {};
    for (const row of stored.data)
      drafts[row.menuCode] = { scope: row.scope, orgIds: row.orgIds, condition: row.condition ?? '' };
    return drafts;
  }, [stored.data]);
  const [drafts, setDrafts] = useDraft(loaded);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const { send, isSending } = useApiWrite();
  const submit = useSubmit();
  const entities = useMemo(
    () =>
      [...(resources?.values() ?? [])]
        .flatMap((resource) => (resource.entity?.isTenantScoped ? [resource.entity] : []))
        .map((entity) => ({ name: entity.name, title: entityTitle(t, entity.name, entity.title) }))
        .sort((a, b) => a.title.localeCompare(b.title)),
    [resources, t],
  );
  const treeData = useMemo(() => orgTreeData(orgs.data ?? []), [orgs.data]);
  const draftOf = (name: string): ScopeDraft => drafts?.[name] ?? { scope: 'all', orgIds: [], condition: '' };
  const change = (name: string, patch: Partial<ScopeDraft>): void =>
    setDrafts((current) => ({ ...current, [name]: { ...draftOf(name), ...patch } }));

  const save = async (): Promise<void> => {
    const rows = entities
      .map(({ name }) => ({ menuCode: name, ...draftOf(name) }))
      .filter((row) => row.scope !== 'all')
      .map((row) => ({
        menuCode: row.menuCode,
        scope: row.scope,
        ...(row.scope === 'orgs' ? { orgIds: row.orgIds } : {}),
        ...(row.scope === 'condition' ? { condition: row.condition } : {}),
      }));
    setErrors({});
    await submit(() =>
      send('post', `${API.role}/authorizeDataScopeToRole`, { roleId, rows }).catch((error: HttpError) => {
        // Field errors name /rows/<i>/<field>: shown under the entity of that row.
        const found: Record<string, string> = {};
        for (const [field, texts] of Object.entries(fieldMessages(error))) {
          const index = /^\/?rows[./](\d+)[./]/.exec(field)?.[1];
          const row = index === undefined ? undefined : rows[Number(index)];
          if (row) found[row.menuCode] = texts.join('; ');
        }
        setErrors(found);
        throw error;
      }),
    );
  };

  return (
    <SavePanel
      testId="role-scopes"
      isLoading={stored.isLoading || drafts === undefined}
      canSave={canSave}
      isSaving={isSending}
      onSave={() => void save()}
    >
      <Alert
        type="info"
        showIcon
        message={t('admin.screens.role.scopeHelp')}
        className="admin-screen-search"
      />
      <Table
        size="small"
        rowKey="name"
        dataSource={entities}
        pagination={{ pageSize: 10, showSizeChanger: false }}
        columns={[
          { key: 'title', dataIndex: 'title', title: t('admin.screens.role.scopeEntity'), width: 180 },
          {
            key: 'scope',
            title: t('admin.screens.role.scopeKind'),
            width: 200,
            render: (_: unknown, row: { name: string }) => (
              <Select<DataScope>
                data-testid={`scope-${row.name}`}
                style={{ width: '100%' }}
                value={draftOf(row.name).scope}
                disabled={!canSave}
                onChange={(scope) => change(row.name, { scope })}
                options={DATA_SCOPES.map((scope) => ({
                  value: scope,
                  label: t(`admin.screens.role.scope_${scope}`),
                }))}
              />
            ),
          },
          {
            key: 'detail',
            title: `${t('admin.screens.role.scopeOrgs')} / ${t('admin.screens.role.scopeCondition')}`,
            render: (_: unknown, row: { name: string }) => {
              const draft = draftOf(row.name);
              const error = errors[row.name];
              return (
                <>
                  {draft.scope === 'orgs' && (
                    <TreeSelect<number[]>
                      style={{ width: '100%' }}
                      multiple
                      treeCheckable
                      treeCheckStrictly={false}
                      showCheckedStrategy={TreeSelect.SHOW_ALL}
                      treeDefaultExpandAll
                      disabled={!canSave}
                      placeholder={t('admin.screens.role.scopeOrgs')}
                      treeData={treeData}
                      value={draft.orgIds}
                      onChange={(value) => change(row.name, { orgIds: value.map(Number) })}
                    />
                  )}
                  {draft.scope === 'condition' && (
                    <Input
                      data-testid={`scope-condition-${row.name}`}
                      disabled={!canSave}
                      status={error ? 'error' : undefined}
                      placeholder={t('admin.screens.role.scopeConditionHint')}
                      value={draft.condition}
                      onChange={(event) => change(row.name, { condition: event.target.value })}
                    />
                  )}
                  {error && <Typography.Text type="danger">{error}</Typography.Text>}
                </>
              );
            },
          },
        ]}
      />
    </SavePanel>
  );
}
