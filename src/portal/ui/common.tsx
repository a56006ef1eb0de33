import { useEffect, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { formatAmount, formatDateTime, type AmountScale } from '../../web/format.js';
import { usePortal, useT } from '../context.js';
import { htmlLang } from '../i18n.js';
import { Icon } from './icons.js';

export interface AsyncState<T> {
  data: T | undefined;
  error: string | undefined;
  isLoading: boolean;
}

/** Runs a request when its dependencies change; a later answer never overwrites a newer one. */
export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[]): AsyncState<T> {
  const [state, setState] = useState<AsyncState<T>>({ data: undefined, error: undefined, isLoading: true });
  useEffect(() => {
    let isCurrent = true;
    setState((previous) => ({ ...previous, isLoading: true, error: undefined }));
    load().then(
      (data) => isCurrent && setState({ data, error: undefined, isLoading: false }),
      (error: unknown) =>
        isCurrent &&
        setState({
          data: undefined,
          error: error instanceof Error ? error.message : String(error),
          isLoading: false,
        }),
    );
    return () => {
      isCurrent = false;
    };
  }, deps);
  return state;
}

/** A date as YYYY-MM-DD (lists) or the full docs/product.md §9 format. */
export function day(value: string | null | undefined): string {
  return formatDateTime(value ?? '').slice(0, 10);
}

/** Formats an amount of yuan in the current language's units (1,286 万元, CNY 12.86 million). */
/** An amount (a decimal's exact text, or a number) in the portal's 万元 scales: a display only. */
export function useMoney(): (value: number | string | null | undefined) => string {
  const { list, language } = usePortal();
  const scales = list<AmountScale>('common.amount');
  const locale = htmlLang(language);
  return (value) =>
    value === null || value === undefined || value === '' ? '—' : formatAmount(Number(value), scales, locale);
}

export function Empty({ text }: { text?: string }) {
  const t = useT();
  return <div className="empty">{text ?? t('common.empty')}</div>;
}

export function ErrorNote({ text }: { text: string }) {
  return (
    <div className="error-note" role="alert">
      {text}
    </div>
  );
}

export function SkeletonLines({ count = 4 }: { count?: number }) {
  return (
    <div className="skeleton" aria-hidden="true">
      {Array.from({ length: count }, (_, index) => (
        <span key={index} style={{ width: `${90 - ((index * 17) % 35)}%` }} />
      ))}
    </div>
  );
}

export function Pagination({
  current,
  pageSize,
  total,
  onChange,
}: {
  current: number;
  pageSize: number;
  total: number;
  onChange: (page: number) => void;
}) {
  const t = useT();
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (total <= pageSize) return null;
  const numbers: (number | '…')[] = [];
  for (let page = 1; page <= pages; page += 1) {
    if (page === 1 || page === pages || Math.abs(page - current) <= 1) numbers.push(page);
    else if (numbers[numbers.length - 1] !== '…') numbers.push('…');
  }
  return (
    <nav className="pagination" aria-label={t('common.pagination')}>
      <button
        type="button"
        disabled={current <= 1}
        onClick={() => onChange(current - 1)}
        aria-label={t('common.prev')}
      >
        <Icon name="left" size={14} />
      </button>
      {numbers.map((page, index) =>
        page === '…' ? (
          <span key={`gap${index}`} className="gap">
            …
          </span>
        ) : (
          <button
            type="button"
            key={page}
            className={page === current ? 'is-active' : undefined}
            aria-current={page === current ? 'page' : undefined}
            onClick={() => onChange(page)}
          >
            {page}
          </button>
        ),
      )}
      <button
        type="button"
        disabled={current >= pages}
        onClick={() => onChange(current + 1)}
        aria-label={t('common.next')}
      >
        <Icon name="right" size={14} />
      </button>
      <span className="total">{t('common.total', { total })}</span>
    </nav>
  );
}

export function Breadcrumb({ items }: { items: { label: string; to?: string }[] }) {
  const t = useT();
  return (
    <nav className="breadcrumb" aria-label={t('common.breadcrumb')}>
      {items.map((item, index) => (
        <span key={item.label}>
          {index > 0 && <span className="sep">/</span>}
          {item.to ? <Link to={item.to}>{item.label}</Link> : <span aria-current="page">{item.label}</span>}
        </span>
      ))}
    </nav>
  );
}

export function PageBanner({
  title,
  subtitle,
  children,
}: {
  title: string;
  subtitle?: string;
  children?: ReactNode;
}) {
  return (
    <section className="page-banner">
      <div className="container">
        <h1>{title}</h1>
        {subtitle && <p>{subtitle}</p>}
        {children}
      </div>
    </section>
  );
}

/** ?id= of a detail page, or undefined. */
export function idParam(search: URLSearchParams): number | undefined {
  const value = Number(search.get('id'));
  return Number.isInteger(value) && value > 0 ? value : undefined;
}
