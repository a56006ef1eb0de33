import { App, Checkbox, Flex } from 'antd';
import { useEffect, useState, type ReactNode } from 'react';
import { useT } from '../../i18n.js';
import { useApiGet, useApiWrite } from '../api.js';
import { API, errorText, Loading, roleLabel, SaveBar, type RoleOption } from '../common.js';

export interface RoleLinksProps {
  /** GET endpoint answering the linked role ids, e.g. /api/admin/sysurl/queryRoleIdByUrlId. */
  queryUrl: string;
  /** POST endpoint replacing them, e.g. /api/admin/sysurl/authorizeRoleToUrl. */
  authorizeUrl: string;
  /** The record's id parameter and body field, e.g. urlId. */
  idName: string;
  id: number;
  canSave: boolean;
  header: ReactNode;
  onSaved: () => void;
  testId: string;
}

/**
 * The roles one record is granted to (a URL permission, a post): every role of the tenant,
 * ticked where linked. Saving with none ticked unlinks it from every role.
 */
export function RoleLinks({
  queryUrl,
  authorizeUrl,
  idName,
  id,
  canSave,
  header,
  onSaved,
  testId,
}: RoleLinksProps) {
  const t = useT();
  const { message } = App.useApp();
  const roles = useApiGet<RoleOption[]>(`${API.role}/queryRoleName`);
  const linked = useApiGet<number[]>(queryUrl, { [idName]: id });
  const [checked, setChecked] = useState<number[] | undefined>(undefined);
  const { send, isSending } = useApiWrite();
  useEffect(() => {
    if (linked.data && checked === undefined) setChecked(linked.data);
  }, [linked.data, checked]);

  const save = async (): Promise<void> => {
    try {
      await send('post', authorizeUrl, { [idName]: id, roleIds: checked ?? [] });
      void message.success(t('admin.common.operateSuccess'));
      onSaved();
    } catch (error) {
      void message.error(errorText(error));
    }
  };

  return (
    <div data-testid={testId}>
      <p>{header}</p>
      <Loading isLoading={roles.isLoading || checked === undefined} isEmpty={roles.data?.length === 0}>
        <Checkbox.Group value={checked} onChange={(values) => setChecked(values.map(Number))}>
          <Flex vertical gap={8}>
            {(roles.data ?? []).map((role) => (
              <Checkbox key={role.id} value={role.id}>
                {roleLabel(role)}
              </Checkbox>
            ))}
          </Flex>
        </Checkbox.Group>
      </Loading>
      <SaveBar
        t={t}
        canSave={canSave}
        isSaving={isSending}
        onSave={() => void save()}
        testId={`${testId}-save`}
      />
    </div>
  );
}
