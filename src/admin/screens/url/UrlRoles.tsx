import { App, Checkbox, Flex } from 'antd';
import { useEffect, useState } from 'react';
import type { RecordScreenProps } from '../../entity/extensions.js';
import { useT } from '../../i18n.js';
import { useApiGet, useApiWrite, useCanButton } from '../api.js';
import { API, errorText, Loading, roleLabel, SaveBar, type RoleOption } from '../common.js';

/**
 * The roles that hold one URL permission (SPEC §7 queryRoleIdByUrlId, authorizeRoleToUrl),
 * opened from the URL list for one checked URL. Saving with no role ticked revokes it from all.
 */
export default function UrlRoles({ record, onClose }: RecordScreenProps) {
  const t = useT();
  const { message } = App.useApp();
  const can = useCanButton('sysurl');
  const urlId = Number(record.id);
  const roles = useApiGet<RoleOption[]>(`${API.role}/queryRoleName`);
  const granted = useApiGet<number[]>(`${API.url}/queryRoleIdByUrlId`, { urlId });
  const [checked, setChecked] = useState<number[] | undefined>(undefined);
  const { send, isSending } = useApiWrite();
  useEffect(() => {
    if (granted.data && checked === undefined) setChecked(granted.data);
  }, [granted.data, checked]);

  const save = async (): Promise<void> => {
    try {
      await send('post', `${API.url}/authorizeRoleToUrl`, { urlId, roleIds: checked ?? [] });
      void message.success(t('admin.common.operateSuccess'));
      onClose(false);
    } catch (error) {
      void message.error(errorText(error));
    }
  };

  return (
    <div data-testid="url-roles">
      <p>
        <code>{String(record.url ?? '')}</code>
      </p>
      <Loading isLoading={roles.isLoading || checked === undefined} isEmpty={roles.data?.length === 0}>
        <Checkbox.Group value={checked} onChange={(values) => setChecked(values.map(Number))}>
          <Flex vertical gap={8}>
            {(roles.data ?? []).map((role) => (
              <Checkbox key={role.id} value={role.id} data-role-code={role.roleCode}>
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
        testId="url-roles-save"
      />
    </div>
  );
}
