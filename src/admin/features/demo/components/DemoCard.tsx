import { Card, Typography } from 'antd';
import type { ReactNode } from 'react';
import { routeTitle } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import './demo.css';

/** The frame of a component demo page: the route's title and a line saying what it shows. */
export function DemoCard({
  route,
  intro,
  children,
}: {
  route: AppRoute;
  intro: string;
  children: ReactNode;
}) {
  return (
    <Card title={routeTitle(route)} className="admin-page demo-page" data-testid="page-title">
      <Typography.Paragraph className="demo-intro">{intro}</Typography.Paragraph>
      {children}
    </Card>
  );
}
