import { useGetIdentity } from '@refinedev/core';
import { Avatar, Card, Descriptions, Tag } from 'antd';
import { useState } from 'react';
import { useT } from '../i18n.js';
import { DEFAULT_AVATAR } from '../layout/Logo.js';
import type { SysUser } from '../providers/auth.js';

/** /profile/index: the signed-in user's own details. */
export default function Profile() {
  const t = useT();
  const { data: user } = useGetIdentity<SysUser>();
  const [failed, setFailed] = useState(false);
  const field = (name: string): string => t(`entities.sysuser.fields.${name}`);
  return (
    <Card title={t('menus.profile')} className="admin-page" data-testid="page-title">
      <div className="admin-profile">
        <Avatar
          size={96}
          src={!failed && user?.avatar ? user.avatar : DEFAULT_AVATAR}
          onError={() => {
            setFailed(true);
            return false;
          }}
        />
        <Descriptions column={1} bordered size="small" className="admin-profile-details">
          <Descriptions.Item label={field('username')}>{user?.username}</Descriptions.Item>
          <Descriptions.Item label={field('nickname')}>{user?.nickname}</Descriptions.Item>
          <Descriptions.Item label={field('orgId')}>{user?.orgName}</Descriptions.Item>
          <Descriptions.Item label={field('email')}>{user?.email}</Descriptions.Item>
          <Descriptions.Item label={field('mobile')}>{user?.mobile}</Descriptions.Item>
          <Descriptions.Item label={field('roleId')}>
            {user?.roles.map((role) => (
              <Tag key={role}>{t(`roles.${role}.name`, { defaultValue: role })}</Tag>
            ))}
          </Descriptions.Item>
        </Descriptions>
      </div>
    </Card>
  );
}
