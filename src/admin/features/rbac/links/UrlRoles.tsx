import type { RecordScreenProps } from '../../../entity/record-screen.js';
import { useCanButton } from '../../../lib/api.js';
import { API } from '../../../lib/screen-parts.js';
import { RoleLinks } from './RoleLinks.js';

/** The roles that hold one URL permission (docs/product.md §7 queryRoleIdByUrlId, authorizeRoleToUrl). */
export default function UrlRoles({ record, onClose }: RecordScreenProps) {
  const can = useCanButton('sysurl');
  return (
    <RoleLinks
      queryUrl={`${API.url}/queryRoleIdByUrlId`}
      authorizeUrl={`${API.url}/authorizeRoleToUrl`}
      idName="urlId"
      id={Number(record.id)}
      canSave={can('update')}
      header={<code>{String(record.url ?? '')}</code>}
      onSaved={() => onClose(false)}
      testId="url-roles"
    />
  );
}
