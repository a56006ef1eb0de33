import type { HttpError } from '@refinedev/core';
import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { App, Button, Popconfirm, Select, Table, Typography } from 'antd';
import type { ColumnType } from 'antd/es/table';
import { useMemo, useState } from 'react';
import { useT } from '../../../i18n.js';
import { useResources } from '../../../entity/resources.js';
import { useApiGet, useApiWrite, withQuery } from '../../../lib/api.js';
import {
  API,
  errorText,
  fieldTitle,
  roleLabel,
  SaveBar,
  useDraft,
  type RoleOption,
} from '../../../lib/screen-parts.js';
import {
  fromStored,
  rowErrors,
  serverRowErrors,
  type DataFieldRow,
  type RowErrors,
  type StoredDataFieldRow,
  withList,
} from './rows.js';

let nextKey = 0;

export interface DataFieldPermissions {
  /** Add rows (menu button add). */
  canAdd: boolean;
  /** Save the rows (menu button update). */
  canSave: boolean;
  /** Delete stored rows (menu button delete). */
  canDelete: boolean;
}

/**
 * Data-field permissions of one menu (docs/product.md §3 "menu data permission: roleCode and filtered data
 * fields"): one row per role code listing the fields of the menu's screen hidden from that role
 * and those it sees but may not change (read-only); any other field is visible and writable.
 * The menu code of a generated screen is its entity name.
 */
export function DataFieldEditor({
  menuCode,
  entity,
  permissions,
}: {
  menuCode: string;
  entity: string;
  permissions: DataFieldPermissions;
}) {
  const t = useT();
  const { message } = App.useApp();
  const stored = useApiGet<StoredDataFieldRow[]>(`${API.menu}/queryDataFieldByMenuCode`, { menuCode });
  const roles = useApiGet<RoleOption[]>(`${API.role}/queryRoleName`);
  const resources = useResources();
  const definition = resources?.get(entity)?.entity;
  const storedRows = useMemo(() => (stored.data ? fromStored(stored.data) : undefined), [stored.data]);
  const [rows, setRows] = useDraft(storedRows);
  const [errors, setErrors] = useState<RowErrors>({});
  const { send, isSending } = useApiWrite();

  const roleOptions = useMemo(
    () => (roles.data ?? []).map((role) => ({ value: role.roleCode, label: roleLabel(role) })),
    [roles.data],
  );
  const fieldOptions = useMemo(
    () =>
      // The key is never hidden (records must stay addressable), secrets are never shown anyway.
      (definition?.fields ?? [])
        .filter((field) => !field.isKey && !field.isSecret && !field.isSystem)
        .map((field) => ({
          value: field.name,
          label: fieldTitle(t, entity, field.name, field.schema.title ?? field.name),
        })),
    [definition, t, entity],
  );

  const change = (key: string, patch: Partial<DataFieldRow>): void => {
    setRows((current) => current?.map((row) => (row.key === key ? { ...row, ...patch } : row)));
    setErrors((current) => {
      const { [key]: _dropped, ...rest } = current;
      return rest;
    });
  };

  /** A column choosing a list of the screen's fields for the row's role (hidden or read-only). */
  const fieldListColumn = (
    list: 'dataFields' | 'readOnlyFields',
    titleKey: string,
    testId: string,
  ): ColumnType<DataFieldRow> => ({
    key: list,
    title: t(titleKey),
    render: (_value, row) => (
      <Select
        mode="multiple"
        allowClear
        optionFilterProp="label"
        className="admin-screen-select"
        value={row[list]}
        options={
          list === 'readOnlyFields'
            ? fieldOptions.filter((option) => !row.dataFields.includes(option.value))
            : fieldOptions
        }
        placeholder={t(titleKey)}
        onChange={(value: string[]) => change(row.key, withList(row, list, value))}
        data-testid={testId}
      />
    ),
  });

  const add = (): void => {
    nextKey += 1;
    setRows((current) => [
      ...(current ?? []),
      { key: `new-${nextKey}`, id: undefined, roleCode: undefined, dataFields: [], readOnlyFields: [] },
    ]);
  };

  const remove = async (row: DataFieldRow): Promise<void> => {
    if (row.id !== undefined) {
      try {
        await send('post', withQuery(`${API.menu}/deleteDataField`, { id: row.id }));
        void message.success(t('admin.crud.deleted'));
      } catch (error) {
        void message.error(errorText(error));
        return;
      }
    }
    setRows((current) => current?.filter((item) => item.key !== row.key));
  };

  const save = async (): Promise<void> => {
    const list = rows ?? [];
    const found = rowErrors(list, {
      required: t('admin.screens.dataFields.roleRequired'),
      duplicate: t('admin.screens.dataFields.roleUnique'),
    });
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    try {
      await send('post', `${API.menu}/authorizeMenuDataToRole`, {
        menuCode,
        rows: list.map((row) => ({
          roleCode: row.roleCode,
          dataFields: row.dataFields,
          readOnlyFields: row.readOnlyFields,
        })),
      });
      void message.success(t('admin.crud.saved'));
      // The stored rows have new ids: read them back.
      await stored.refetch();
      setRows(undefined);
    } catch (error) {
      setErrors(serverRowErrors(list, (error as Partial<HttpError>).errors));
      void message.error(errorText(error));
    }
  };

  return (
    <div data-testid="data-fields">
      <Table<DataFieldRow>
        size="small"
        rowKey="key"
        loading={stored.isLoading || rows === undefined || resources === undefined}
        dataSource={rows ?? []}
        pagination={false}
        columns={[
          {
            key: 'roleCode',
            title: t('admin.screens.dataFields.role'),
            width: 260,
            render: (_value, row) => (
              <>
                <Select
                  showSearch
                  optionFilterProp="label"
                  className="admin-screen-select"
                  value={row.roleCode}
                  options={roleOptions}
                  status={errors[row.key] ? 'error' : undefined}
                  placeholder={t('admin.screens.dataFields.role')}
                  onChange={(value: string) => change(row.key, { roleCode: value })}
                  data-testid="data-field-role"
                />
                {errors[row.key] && (
                  <Typography.Text type="danger" className="admin-screen-error">
                    {errors[row.key]}
                  </Typography.Text>
                )}
              </>
            ),
          },
          fieldListColumn('dataFields', 'admin.screens.dataFields.hiddenFields', 'data-field-fields'),
          // a hidden field is not offered as read-only: hidden is the stronger right
          fieldListColumn(
            'readOnlyFields',
            'admin.screens.dataFields.readOnlyFields',
            'data-field-read-only',
          ),
          {
            key: 'actions',
            width: 64,
            render: (_value, row) =>
              row.id === undefined || permissions.canDelete ? (
                <Popconfirm
                  title={t('admin.crud.confirmDeleteOne')}
                  onConfirm={() => remove(row)}
                  okText={t('admin.common.confirm')}
                  cancelText={t('admin.common.cancel')}
                >
                  <Button
                    type="text"
                    danger
                    icon={<DeleteOutlined />}
                    aria-label={t('admin.crud.delete')}
                    data-testid="data-field-delete"
                  />
                </Popconfirm>
              ) : null,
          },
        ]}
      />
      {permissions.canAdd && (
        <Button
          type="dashed"
          block
          icon={<PlusOutlined />}
          onClick={add}
          className="admin-screen-add"
          data-testid="data-field-add"
        >
          {t('admin.screens.dataFields.addRow')}
        </Button>
      )}
      <SaveBar
        t={t}
        canSave={permissions.canSave}
        isSaving={isSending}
        onSave={() => void save()}
        hint={t('admin.screens.dataFields.hint')}
        testId="data-fields-save"
      />
    </div>
  );
}
