import { useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import type { Page } from '../../engine/api-types.js';
import { usePortal } from '../context.js';
import { Icon } from './icons.js';
import {
  Breadcrumb,
  Empty,
  ErrorNote,
  PageBanner,
  Pagination,
  SkeletonLines,
  type AsyncState,
} from './common.js';

/** A searchable list's page number, the filters it shows and the draft in the search bar. */
export function useListSearch<F>(initial: F, clean: (draft: F) => F) {
  const [page, setPage] = useState(1);
  const [filters, setFilters] = useState(initial);
  const [draft, setDraft] = useState(initial);
  /** The search bar's submit: back to page 1 with the cleaned draft. */
  const search = (event: FormEvent): void => {
    event.preventDefault();
    setPage(1);
    setFilters(clean(draft));
  };
  return { page, setPage, filters, draft, setDraft, search };
}

/** A list page: the banner, the way home and the card that holds the list. */
export function ListPage({
  className,
  title,
  subtitle,
  children,
}: {
  className?: string;
  title: string;
  subtitle: string;
  children: ReactNode;
}) {
  const { t, home } = usePortal();
  return (
    <div className={className}>
      <PageBanner title={title} subtitle={subtitle} />
      <div className="container">
        <Breadcrumb items={[{ label: t('tabs.home'), to: home }, { label: title }]} />
        <div className="card">{children}</div>
      </div>
    </div>
  );
}

export function SearchBar({
  onSearch,
  children,
}: {
  onSearch: (event: FormEvent) => void;
  children: ReactNode;
}) {
  const { t } = usePortal();
  return (
    <form className="search-bar" onSubmit={onSearch} role="search">
      {children}
      <button type="submit" className="btn btn-primary">
        <Icon name="search" size={16} /> {t('common.search')}
      </button>
    </form>
  );
}

export function SearchInput({
  value,
  maxLength,
  placeholder,
  className,
  onChange,
}: {
  value: string;
  maxLength: number;
  placeholder: string;
  className?: string;
  onChange: (value: string) => void;
}) {
  return (
    <input
      type="search"
      className={className}
      value={value}
      maxLength={maxLength}
      placeholder={placeholder}
      aria-label={placeholder}
      onChange={(event) => onChange(event.target.value)}
    />
  );
}

/** A page of records: the error, a skeleton while the first page loads, the records or "empty", the pager. */
export function PagedResults<T>({
  state,
  page,
  pageSize,
  onPage,
  skeletonLines,
  children,
}: {
  state: AsyncState<Page<T>>;
  page: number;
  pageSize: number;
  onPage: (page: number) => void;
  skeletonLines: number;
  children: (records: T[]) => ReactNode;
}) {
  return (
    <>
      {state.error && <ErrorNote text={state.error} />}
      {state.isLoading && !state.data ? (
        <SkeletonLines count={skeletonLines} />
      ) : state.data && state.data.records.length > 0 ? (
        children(state.data.records)
      ) : (
        !state.error && <Empty />
      )}
      {state.data && (
        <Pagination current={page} pageSize={pageSize} total={state.data.total} onChange={onPage} />
      )}
    </>
  );
}

/** One row of a text list: tags and title as the link, an optional summary, then the meta line. */
export function ListItem({
  to,
  tags,
  title,
  summary,
  children,
}: {
  to: string;
  tags: ReactNode;
  title: string | null;
  summary?: string | null;
  children: ReactNode;
}) {
  return (
    <li className="list-item">
      <Link to={to} className="list-title">
        {tags}
        <span>{title}</span>
      </Link>
      {summary && <p className="list-summary">{summary}</p>}
      <p className="list-meta">{children}</p>
    </li>
  );
}
