import type { ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { usePortal } from '../context.js';
import { ApiError } from '../../web/http.js';
import { Breadcrumb, ErrorNote, idParam, SkeletonLines, useAsync, type AsyncState } from './common.js';

/**
 * The record of a detail page's ?id=. A missing id and a record that does not exist or is no
 * longer published read the same to a visitor: 内容不存在或已下线, once, in the page.
 */
export function useDetail<T>(load: (id: number) => Promise<T>): AsyncState<T> {
  const { t } = usePortal();
  const [search] = useSearchParams();
  const id = idParam(search);
  return useAsync(async () => {
    const notFound = new Error(t('common.notFound'));
    if (id === undefined) throw notFound;
    try {
      return await load(id);
    } catch (error) {
      throw error instanceof ApiError && (error.status === 404 || error.status === 400) ? notFound : error;
    }
  }, [id]);
}

/** A detail page: the way back through home and its list, then the content. */
export function DetailPage({
  list,
  title,
  children,
}: {
  list: { label: string; to: string };
  title: string;
  children: ReactNode;
}) {
  const { t, home } = usePortal();
  return (
    <div className="container detail-page">
      <Breadcrumb items={[{ label: t('tabs.home'), to: home }, list, { label: title }]} />
      {children}
    </div>
  );
}

/** The card of a detail: the error, a skeleton while it loads, then the record. */
export function DetailArticle<T>({
  testId,
  state,
  skeletonLines,
  children,
}: {
  testId: string;
  state: AsyncState<T>;
  skeletonLines: number;
  children: ReactNode;
}) {
  return (
    <article className="card article" data-testid={testId}>
      {state.error && <ErrorNote text={state.error} />}
      {state.isLoading && <SkeletonLines count={skeletonLines} />}
      {children}
    </article>
  );
}

/** A detail page's facts, label and value. */
export function Facts({ rows }: { rows: [string, string][] }) {
  return (
    <dl className="facts">
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
