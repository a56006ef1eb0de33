import { Col, Row, Skeleton, Typography } from 'antd';
import { lazy, Suspense, useState } from 'react';
import { sanitizeHtml } from '../../../../web/sanitize.js';
import { EDITOR_HEIGHT } from '../../../entity/richtext-defaults.js';
import { useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import { DemoCard } from './DemoCard.js';

/** The forms' editor (TipTap, its own chunk), the same one x-ui widget richtext uses. */
const RichTextEditor = lazy(() => import('../../../entity/RichTextEditor.js'));

/** Rich text: the back-office editor with its picture upload, and the HTML it produces shown as a page would. */
export default function RichTextDemo({ route }: { route: AppRoute }) {
  const t = useT();
  const [html, setHtml] = useState<string | undefined>(t('demoComponents.richText.sample'));
  return (
    <DemoCard route={route} intro={t('demoComponents.richText.intro')}>
      <Row gutter={[16, 16]}>
        <Col xs={24} xl={14}>
          <Suspense
            fallback={<Skeleton active paragraph={{ rows: 8 }} style={{ minHeight: EDITOR_HEIGHT }} />}
          >
            <RichTextEditor
              id="demo-richtext"
              label={t('demoComponents.richText.label')}
              value={html}
              onChange={setHtml}
              onBlur={setHtml}
            />
          </Suspense>
        </Col>
        <Col xs={24} xl={10}>
          <Typography.Title level={5}>{t('demoComponents.richText.preview')}</Typography.Title>
          <div
            className="demo-richtext-preview"
            data-testid="demo-richtext-preview"
            dangerouslySetInnerHTML={{ __html: sanitizeHtml(html ?? '') }}
          />
          <Typography.Title level={5}>{t('demoComponents.richText.html')}</Typography.Title>
          <pre className="demo-code">{html ?? ''}</pre>
        </Col>
      </Row>
    </DemoCard>
  );
}
