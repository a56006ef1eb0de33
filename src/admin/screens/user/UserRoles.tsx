import { App, Checkbox, Flex } from 'antd';
import { useEffect, useState } from 'react';
import type { RecordScreenProps } from '../../entity/extensions.js';
import { useT } from '../../i18n.js';
import { useApiGet, useApiWrite, useCanButton } from '../api.js';
import { API, errorText, Loading, roleLabel, SaveBar, type RoleOption } from '../common.js';

/**
 * The further roles of one user (SPEC §7 queryRoleName?userId, authorizeRoleToUser), opened
 * from the user list. The user's own role (the form's role field) is kept whatever is ticked.
 */
export default function UserRoles({ record, onClose }: RecordScreenProps) {
  const t = useT();
  const { message } = App.useApp();
  const can = useCanButton('sysuser');
  const userId = Number(record.id);
  const ownRoleId = Number(record.roleId);
  const roles = useApiGet<RoleOption[]>(`${API.role}/queryRoleName`, { userId });
  const [checked, setChecked] = useState<number[] | undefined>(undefined);
  const { send, isSending } = useApiWrite();
  useEffect(() => {
    if (roles.data && checked === undefined) {
      const linked = roles.data.filter((role) => role.checked).map((role) => role.id);
      setChecked(linked.includes(ownRoleId) ? linked : [...linked, ownRoleId]);
    }
  }, [roles.data, checked, ownRoleId]);

  const save = async (): Promise<void> => {
    try {
      await send('post', `${API.role}/authorizeRoleToUser`, {
        userId,
        roleIds: (checked ?? []).filter((id) => id !== ownRoleId),
      });
      void message.success(t('admin.common.operateSuccess'));
      onClose(false);
    } catch (error) {
      void message.error(errorText(error));
    }
  };

  return (
    <div data-testid="user-roles">
      <p>
        <strong>{String(record.username ?? '')}</strong>
      </p>
      <Loading isLoading={roles.isLoading || checked === undefined}>
        <Checkbox.Group value={checked} onChange={(values) => setChecked(values.map(Number))}>
          <Flex vertical gap={8}>
            {(roles.data ?? []).map((role) => (
              <Checkbox
                key={role.id}
                value={role.id}
                disabled={role.id === ownRoleId}
                data-role-code={role.roleCode}
              >
                {roleLabel(role)}
              </Checkbox>
            ))}
          </Flex>
        </Checkbox.Group>
      </Loading>
      <SaveBar
        t={t}
        canSave={can('update')}
        isSaving={isSending}
        onSave={() => void save()}
        hint={t('admin.screens.userRoles.hint')}
        testId="user-roles-save"
      />
    </div>
  );
}
