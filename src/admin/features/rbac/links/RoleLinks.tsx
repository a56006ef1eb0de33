import type { ReactNode } from 'react';
import { useApiGet, useApiWrite } from '../../../lib/api.js';
import {
  API,
  CheckList,
  roleLabel,
  SavePanel,
  useDraft,
  useSubmit,
  type RoleOption,
} from '../../../lib/screen-parts.js';

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
  const roles = useApiGet<RoleOption[]>(`${API.role}/queryRoleName`);
  const linked = useApiGet<number[]>(queryUrl, { [idName]: id });
  const [checked, setChecked] = useDraft(linked.data);
  const { send, isSending } = useApiWrite();
  const submit = useSubmit();

  const save = (): Promise<void> =>
    submit(() => send('post', authorizeUrl, { [idName]: id, roleIds: checked ?? [] }), { after: onSaved });

  return (
    <SavePanel
      testId={testId}
      top={<p>{header}</p>}
      isLoading={roles.isLoading || checked === undefined}
      isEmpty={roles.data?.length === 0}
      canSave={canSave}
      isSaving={isSending}
      onSave={() => void save()}
    >
      <CheckList
        value={checked}
        onChange={setChecked}
        options={(roles.data ?? []).map((role) => ({ value: role.id, label: roleLabel(role) }))}
      />
    </SavePanel>
  );
}
