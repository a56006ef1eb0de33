import { useMemo } from 'react';
import type { RecordScreenProps } from '../../../entity/record-screen.js';
import { useT } from '../../../i18n.js';
import { useApiGet, useApiWrite, useCanButton } from '../../../lib/api.js';
import {
  API,
  CheckList,
  roleLabel,
  SavePanel,
  useDraft,
  useSubmit,
  type RoleOption,
} from '../../../lib/screen-parts.js';

/**
 * The further roles of one user (docs/product.md §7 queryRoleName?userId, authorizeRoleToUser), opened
 * from the user list. The user's own role (the form's role field) is kept whatever is ticked.
 */
export default function UserRoles({ record, onClose }: RecordScreenProps) {
  const t = useT();
  const can = useCanButton('sysuser');
  const userId = Number(record.id);
  const ownRoleId = Number(record.roleId);
  const roles = useApiGet<RoleOption[]>(`${API.role}/queryRoleName`, { userId });
  const linked = useMemo(() => {
    if (!roles.data) return undefined;
    const ids = roles.data.filter((role) => role.checked).map((role) => role.id);
    return ids.includes(ownRoleId) ? ids : [...ids, ownRoleId];
  }, [roles.data, ownRoleId]);
  const [checked, setChecked] = useDraft(linked);
  const { send, isSending } = useApiWrite();
  const submit = useSubmit();

  const save = (): Promise<void> =>
    submit(
      () =>
        send('post', `${API.role}/authorizeRoleToUser`, {
          userId,
          roleIds: (checked ?? []).filter((id) => id !== ownRoleId),
        }),
      { after: () => onClose(false) },
    );

  return (
    <SavePanel
      testId="user-roles"
      top={
        <p>
          <strong>{String(record.username ?? '')}</strong>
        </p>
      }
      isLoading={roles.isLoading || checked === undefined}
      canSave={can('update')}
      isSaving={isSending}
      onSave={() => void save()}
      hint={t('admin.screens.userRoles.hint')}
    >
      <CheckList
        value={checked}
        onChange={setChecked}
        options={(roles.data ?? []).map((role) => ({
          value: role.id,
          label: roleLabel(role),
          disabled: role.id === ownRoleId,
          data: { 'data-role-code': role.roleCode },
        }))}
      />
    </SavePanel>
  );
}
