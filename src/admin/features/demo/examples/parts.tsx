import { Card, Typography } from 'antd';
import type { ReactNode } from 'react';
import { routeTitle, useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import './examples.css';

/** The frame of a demo page: the route's title, a line saying what it shows, the page. */
export function DemoPage({
  route,
  intro,
  extra,
  children,
  className,
}: {
  route: AppRoute;
  intro?: string;
  extra?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  useT();
  return (
    <Card
      title={<h1 className="example-title">{routeTitle(route)}</h1>}
      extra={extra}
      className={`admin-page example-page${className ? ` ${className}` : ''}`}
      data-testid="page-title"
    >
      {intro ? (
        <Typography.Paragraph type="secondary" className="example-intro">
          {intro}
        </Typography.Paragraph>
      ) : null}
      {children}
    </Card>
  );
}

export { saveFile } from '../../../entity/file-api.js';
