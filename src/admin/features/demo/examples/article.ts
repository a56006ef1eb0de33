import { useList, type BaseRecord } from '@refinedev/core';
import { useMemo } from 'react';
import { formatDateTime } from '../../../../web/format.js';
import type { Translate } from '../../../i18n.js';
import { useDictOptions, stringOptions } from '../../../entity/options.js';
import { fieldTitle } from '../../../lib/screen-parts.js';

/**
 * The article entity (schemas/article.schema.json) as the demo pages read it: through Refine's
 * data provider (resource `article`, the generated demo/article API), never by a call of their own.
 */
export const ARTICLE = 'article';

export interface Article extends BaseRecord {
  id: number;
  version: number;
  title: string;
  author: string;
  reviewer?: string | null;
  importance: number;
  type: string;
  status: string;
  displayTime?: string | null;
  forecast?: number | null;
  pageviews?: number | null;
  commentDisabled?: boolean | null;
  platforms?: string[] | null;
  contentShort?: string | null;
  content?: string | null;
}

export type ArticleField = Exclude<keyof Article, number | symbol>;

/** The fields the demo tables show, in order. */
export const ARTICLE_FIELDS: ArticleField[] = [
  'id',
  'title',
  'author',
  'reviewer',
  'importance',
  'type',
  'status',
  'displayTime',
  'forecast',
  'pageviews',
  'platforms',
];

const DICTS: Partial<Record<ArticleField, string>> = {
  type: 'article_type',
  status: 'article_status',
  platforms: 'article_platform',
};

export function articleFieldTitle(t: Translate, field: ArticleField): string {
  return fieldTitle(t, ARTICLE, field);
}

/** A field's value as a person reads it: dictionary labels, dates, yes/no. */
export function articleText(t: Translate, field: ArticleField, value: unknown): string {
  if (value === null || value === undefined) return '';
  const dict = DICTS[field];
  if (Array.isArray(value)) return value.map((item) => articleText(t, field, item)).join(', ');
  if (dict) return t(`dicts.${dict}.${String(value)}`, { defaultValue: String(value) });
  if (field === 'displayTime') return formatDateTime(String(value));
  if (typeof value === 'boolean') return t(value ? 'admin.crud.yes' : 'admin.crud.no');
  return String(value);
}

/** Dictionary options of a field (type, status, platforms) from the dictionaries, with their labels. */
export function useArticleOptions(
  field: 'type' | 'status' | 'platforms',
): { value: string; label: string }[] {
  return stringOptions(useDictOptions(DICTS[field]));
}

export interface ArticlePage {
  articles: Article[];
  total: number;
  isLoading: boolean;
  refetch: () => Promise<unknown>;
}

/** A page of articles, newest first unless sorted otherwise. */
export function useArticles(
  currentPage: number,
  pageSize: number,
  options: { type?: string | undefined; sort?: 'asc' | 'desc' } = {},
): ArticlePage {
  const { result, query } = useList<Article>({
    resource: ARTICLE,
    pagination: { currentPage, pageSize },
    sorters: [{ field: 'id', order: options.sort ?? 'desc' }],
    filters: options.type ? [{ field: 'type', operator: 'eq', value: options.type }] : [],
  });
  return useMemo(
    () => ({
      articles: result.data ?? [],
      total: result.total ?? 0,
      isLoading: query.isLoading,
      refetch: query.refetch,
    }),
    [result.data, result.total, query.isLoading, query.refetch],
  );
}
