import { useMemo } from 'react';
import { sanitizeHtml } from '../../web/sanitize.js';

export function RichText({
  html,
  className = 'rich-text',
}: {
  html: string | null | undefined;
  className?: string;
}) {
  const clean = useMemo(() => sanitizeHtml(html ?? ''), [html]);
  return <div className={className} dangerouslySetInnerHTML={{ __html: clean }} />;
}
