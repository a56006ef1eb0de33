import { Button, Result } from 'antd';
import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { productTitle, useT } from '../i18n.js';

/** /401 and /404. */
export default function ErrorPage({ status }: { status: 401 | 404 }) {
  const t = useT();
  const navigate = useNavigate();
  useEffect(() => {
    document.title = `${t(`admin.error.${status}.title`)} - ${productTitle()}`;
  }, [status, t]);
  return (
    <div className="admin-error-page">
      <Result
        status={status === 401 ? '403' : '404'}
        title={status}
        subTitle={t(`admin.error.${status}.text`)}
        extra={
          <Button type="primary" onClick={() => navigate('/workbench')}>
            {t('admin.error.backHome')}
          </Button>
        }
      />
    </div>
  );
}
