import type { HttpError } from '@refinedev/core';
import { Button, Empty, Flex, Spin, Typography } from 'antd';
import type { ReactNode } from 'react';
import type { Translate } from '../i18n.js';
import type { MenuNode } from '../lib/menus.js';
import './screens.css';

/** A role as queryRoleName answers it. */
export interface RoleOption {
  id: number;
  roleCode: string;
  roleName: string;
  checked: boolean;
}

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

/** A menu's title: its translation (menus.<code>), else the stored name. */
export function menuTitle(t: Translate, node: Pick<MenuNode, 'menuCode' | 'menuName'>): string {
  return t(`menus.${node.menuCode}`, { defaultValue: node.menuName });
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
export function errorText(error: unknown): string {
  const failure = error as Partial<HttpError> | undefined;
  const fields = Object.values(failure?.errors ?? {}).flat();
  const texts = fields.filter((item): item is string => typeof item === 'string');
  return texts.length > 0 ? texts.join('; ') : String(failure?.message ?? error);
}

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

/** Keys of the nodes of a tree, depth first. */
export function treeKeys<T extends { children?: T[] }>(
  nodes: readonly T[],
  key: (node: T) => string,
): string[] {
  return nodes.flatMap((node) => [key(node), ...treeKeys(node.children ?? [], key)]);
}
