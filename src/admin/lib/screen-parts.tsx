import {
  App,
  Button,
  Checkbox,
  Empty,
  Flex,
  Spin,
  Table,
  Tree,
  Typography,
  type TableProps,
  type TreeProps,
} from 'antd';
import { useCallback, useEffect, useState, type Dispatch, type ReactNode, type SetStateAction } from 'react';
import { useT, type Translate } from '../i18n.js';
import { errorText } from '../providers/data.js';
import type { MenuNode, Page, RoleOption } from '../../engine/api-types.js';
import './screens.css';

/** A role as queryRoleName answers it. */
export type { RoleOption };

export const API = {
  role: '/api/admin/sysrole',
  url: '/api/admin/sysurl',
  menu: '/api/admin/sysmenu',
  user: '/api/admin/sysuser',
  org: '/api/admin/sysorg',
  post: '/api/admin/syspost',
  userPost: '/api/admin/sysuserpost',
  notification: '/api/admin/notification',
} as const;

/** A menu's title: its translation (menus.<code>, else a schema menu's entities.<code>.title), else the stored name. */
export function menuTitle(t: Translate, node: Pick<MenuNode, 'menuCode' | 'menuName'>): string {
  for (const key of [`menus.${node.menuCode}`, `entities.${node.menuCode}.title`]) {
    const text = t(key, { defaultValue: '' });
    if (text) return text;
  }
  return node.menuName;
}

/** A field's title: entities.<entity>.fields.<field>, else the common one, else the name. */
export function fieldTitle(t: Translate, entity: string, field: string, fallback = field): string {
  return t(`entities.${entity}.fields.${field}`, {
    defaultValue: t(`entities._common.fields.${field}`, { defaultValue: fallback }),
  });
}

export function roleLabel(role: Pick<RoleOption, 'roleCode' | 'roleName'>): string {
  return `${role.roleName} (${role.roleCode})`;
}

/** The field errors of a failed write, or its message. */
export { errorText };

/** Loading and empty states of a screen part. */
export function Loading({
  isLoading,
  isEmpty = false,
  children,
}: {
  isLoading: boolean;
  isEmpty?: boolean;
  children: ReactNode;
}) {
  if (isLoading) return <Spin className="admin-page-spin" />;
  if (isEmpty) return <Empty />;
  return <>{children}</>;
}

/** The bottom bar of a screen part: a hint on the left, the save button on the right. */
export function SaveBar({
  t,
  onSave,
  isSaving,
  canSave = true,
  hint,
  testId,
}: {
  t: Translate;
  onSave: () => void;
  isSaving: boolean;
  canSave?: boolean;
  hint?: ReactNode;
  testId?: string;
}) {
  return (
    <Flex justify="space-between" align="center" className="admin-screen-bar" gap={12}>
      <Typography.Text type="secondary">{hint}</Typography.Text>
      {canSave && (
        <Button type="primary" onClick={onSave} loading={isSaving} data-testid={testId}>
          {t('admin.crud.save')}
        </Button>
      )}
    </Flex>
  );
}

/**
 * The local copy a screen part edits (ticked ids, held posts, rows): taken from what the server
 * answered when that first arrives, then changed by the screen only. Setting it back to
 * undefined takes the server's answer again.
 */
export function useDraft<T>(loaded: T | undefined): [T | undefined, Dispatch<SetStateAction<T | undefined>>] {
  const [draft, setDraft] = useState<T | undefined>(undefined);
  useEffect(() => {
    if (draft === undefined && loaded !== undefined) setDraft(loaded);
  }, [loaded, draft]);
  return [draft, setDraft];
}

export interface SubmitOptions {
  /** The success message; false: none. By default admin.common.operateSuccess. */
  success?: string | false;
  /** What follows a successful write (a failure of it is reported like the write's). */
  after?: () => unknown;
}

/** Runs a write and reports it: the success message, then `after`; or the write's errors. */
export function useSubmit(): (write: () => Promise<unknown>, options?: SubmitOptions) => Promise<void> {
  const t = useT();
  const { message } = App.useApp();
  return useCallback(
    async (write, { success = t('admin.common.operateSuccess'), after } = {}) => {
      try {
        await write();
        if (success !== false) void message.success(success);
        await after?.();
      } catch (error) {
        void message.error(errorText(error));
      }
    },
    [t, message],
  );
}

/**
 * A screen part that is edited and saved: what stands above (a title, a search), the body with
 * its loading and empty states, and the save bar (test ids <testId> and <testId>-save).
 */
export function SavePanel({
  testId,
  top,
  isLoading = false,
  isEmpty = false,
  children,
  ...bar
}: {
  testId: string;
  top?: ReactNode;
  isLoading?: boolean;
  isEmpty?: boolean;
  children: ReactNode;
  onSave: () => void;
  isSaving: boolean;
  canSave?: boolean;
  hint?: ReactNode;
}) {
  const t = useT();
  return (
    <div data-testid={testId}>
      {top}
      <Loading isLoading={isLoading} isEmpty={isEmpty}>
        {children}
      </Loading>
      <SaveBar t={t} {...bar} testId={`${testId}-save`} />
    </div>
  );
}

/** A checkable tree that reports the ticked keys as strings. */
export function CheckTree({
  onChecked,
  ...props
}: Omit<TreeProps, 'checkable' | 'onCheck'> & { onChecked: (keys: string[]) => void }) {
  return (
    <Tree
      checkable
      selectable={false}
      {...props}
      onCheck={(keys) => onChecked((Array.isArray(keys) ? keys : keys.checked).map(String))}
      className="admin-screen-tree"
    />
  );
}

export interface CheckOption<V> {
  value: V;
  label: ReactNode;
  disabled?: boolean;
  /** data-* attributes of the checkbox. */
  data?: Record<`data-${string}`, string>;
}

/** Checkboxes, one a line (or wrapped in rows with `wrap`). */
export function CheckList<V extends string | number>({
  value,
  onChange,
  options,
  wrap = false,
}: {
  value: V[] | undefined;
  onChange: (values: V[]) => void;
  options: readonly CheckOption<V>[];
  wrap?: boolean;
}) {
  return (
    <Checkbox.Group<V> value={value} onChange={onChange}>
      <Flex {...(wrap ? { wrap: true, gap: 12 } : { vertical: true, gap: 8 })}>
        {options.map((option) => (
          <Checkbox key={option.value} value={option.value} disabled={option.disabled} {...option.data}>
            {option.label}
          </Checkbox>
        ))}
      </Flex>
    </Checkbox.Group>
  );
}

/** A table of one page of records (keyed by id) with the pager below it. */
export function PagedTable<T extends object>({
  read,
  page,
  pageSize,
  onPage,
  ...props
}: Omit<TableProps<T>, 'dataSource' | 'loading' | 'pagination'> & {
  read: { data: Page<T> | undefined; isLoading: boolean };
  page: number;
  pageSize: number;
  onPage: (page: number) => void;
}) {
  return (
    <Table<T>
      size="middle"
      rowKey="id"
      loading={read.isLoading}
      dataSource={read.data?.records ?? []}
      scroll={{ x: 'max-content' }}
      pagination={{
        current: page,
        pageSize,
        total: read.data?.total ?? 0,
        showSizeChanger: false,
        onChange: onPage,
      }}
      {...props}
    />
  );
}

/** One of the items of antd Tabs. */
export function tab(key: string, label: ReactNode, children: ReactNode) {
  return { key, label, children };
}

/** Keys of the nodes of a tree, depth first. */
export function treeKeys<T extends { children?: T[] }>(
  nodes: readonly T[],
  key: (node: T) => string,
): string[] {
  return nodes.flatMap((node) => [key(node), ...treeKeys(node.children ?? [], key)]);
}
