import type { RecordScreenProps } from '../../../entity/record-screen.js';
import { useCanButton } from '../../../lib/api.js';
import { API } from '../../../lib/screen-parts.js';
import { RoleLinks } from './RoleLinks.js';

/**
 * The roles a post works in (queryRoleIdByPostId, authorizeRoleToPost): a user who switches to
 * the post acts in those of their roles only.
 */
export default function PostRoles({ record, onClose }: RecordScreenProps) {
  const can = useCanButton('syspost');
  return (
    <RoleLinks
      queryUrl={`${API.post}/queryRoleIdByPostId`}
      authorizeUrl={`${API.post}/authorizeRoleToPost`}
      idName="postId"
      id={Number(record.id)}
      canSave={can('update')}
      header={
        <strong>
          {String(record.postName ?? '')} <span className="admin-muted">{String(record.postCode ?? '')}</span>
        </strong>
      }
      onSaved={() => onClose(false)}
      testId="post-roles"
    />
  );
}
