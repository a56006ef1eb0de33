import { FilePdfOutlined } from '@ant-design/icons';
import { Button, Descriptions, Select, Space, Spin } from 'antd';
import { useEffect, useId, useState } from 'react';
import { sanitizeHtml } from '../../../../web/sanitize.js';
import { productTitle, useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import { articleFieldTitle, articleText, useArticles } from './article.js';
import { DemoPage } from './parts.js';

/**
 * /pdf/index: an article laid out for paper. 下载 PDF opens the browser's print dialog, whose
 * "save as PDF" writes the file; the print style sheet (examples.css) leaves out the shell, the
 * toolbar and everything but the article, and the document's title names the file.
 */
export default function PdfPage({ route }: { route: AppRoute }) {
  const t = useT();
  const selectId = useId();
  const { articles, isLoading } = useArticles(1, 30, { sort: 'asc' });
  const [chosen, setChosen] = useState<number | undefined>(undefined);
  const article = articles.find((item) => item.id === chosen) ?? articles[0];
  useEffect(() => {
    // the saved PDF is named after the article: the browser takes the name from the title
    const before = document.title;
    const name = article?.title;
    const onBefore = (): void => {
      if (name) document.title = name;
    };
    const onAfter = (): void => {
      document.title = before;
    };
    window.addEventListener('beforeprint', onBefore);
    window.addEventListener('afterprint', onAfter);
    return () => {
      window.removeEventListener('beforeprint', onBefore);
      window.removeEventListener('afterprint', onAfter);
    };
  }, [article?.title]);
  return (
    <DemoPage route={route} intro={t('examples.pdf.intro')} className="example-print">
      <Space className="example-toolbar example-no-print" wrap>
        <label htmlFor={selectId}>{t('examples.pdf.choose')}</label>
        <Select
          id={selectId}
          style={{ minWidth: 320 }}
          value={article?.id}
          onChange={(value: number) => setChosen(value)}
          options={articles.map((item) => ({ value: item.id, label: item.title }))}
        />
        <Button
          type="primary"
          icon={<FilePdfOutlined />}
          onClick={() => window.print()}
          data-testid="pdf-print"
        >
          {t('examples.pdf.download')}
        </Button>
      </Space>
      {isLoading || !article ? (
        <Spin className="admin-page-spin" />
      ) : (
        <article className="example-article" data-testid="pdf-article">
          <h2>{article.title}</h2>
          <Descriptions size="small" column={3}>
            <Descriptions.Item label={articleFieldTitle(t, 'author')}>{article.author}</Descriptions.Item>
            <Descriptions.Item label={articleFieldTitle(t, 'displayTime')}>
              {articleText(t, 'displayTime', article.displayTime)}
            </Descriptions.Item>
            <Descriptions.Item label={articleFieldTitle(t, 'type')}>
              {articleText(t, 'type', article.type)}
            </Descriptions.Item>
          </Descriptions>
          {article.contentShort ? (
            <p>
              <strong>{article.contentShort}</strong>
            </p>
          ) : null}
          <div dangerouslySetInnerHTML={{ __html: sanitizeHtml(article.content ?? '') }} />
          <footer>
            <small>{productTitle()}</small>
          </footer>
        </article>
      )}
    </DemoPage>
  );
}
