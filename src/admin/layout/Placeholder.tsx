import { Card, Empty } from 'antd';
import { routeTitle, useT } from '../i18n.js';
import type { AppRoute } from '../lib/menus.js';

/** A titled page for menu entries whose component names no screen of this build. */
export default function Placeholder({ route }: { route: AppRoute }) {
  const t = useT();
  return (
    <Card title={routeTitle(route)} className="admin-page" data-testid="page-title">
      <Empty description={t('admin.page.comingSoon')} />
    </Card>
  );
}
