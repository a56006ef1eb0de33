import { SearchOutlined } from '@ant-design/icons';
import { Select } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { routeTitle, useT } from '../i18n.js';
import type { MenuSearch as Search, SearchItem } from '../lib/search.js';

/** A result shows where it is: 「系统管理 > 用户管理」. */
const TRAIL_SEPARATOR = ' > ';
import { useApp } from '../store.js';
import { useMenus } from './MenuProvider.js';

/**
 * Header menu search (docs/product.md §2.4): fuse.js over translated titles, pinyin (zh with the setting on)
 * and paths. The search library and the pinyin dictionary load when the box first opens.
 */
export function MenuSearch() {
  const t = useT();
  const app = useApp();
  const { routes } = useMenus();
  const navigate = useNavigate();
  const [isOpen, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState<Search | undefined>(undefined);
  const selectRef = useRef<{ focus(): void } | null>(null);
  const withPinyin = app.language === 'zh' && app.settings.supportPinyinSearch;

  useEffect(() => {
    if (!isOpen) return;
    let isCurrent = true;
    void import('../lib/search.js').then(({ createMenuSearch, searchItems }) => {
      if (isCurrent) setSearch(createMenuSearch(searchItems(routes, routeTitle, withPinyin)));
    });
    return () => {
      isCurrent = false;
    };
  }, [isOpen, routes, withPinyin, app.language]);

  useEffect(() => {
    if (isOpen) selectRef.current?.focus();
  }, [isOpen]);

  const results: SearchItem[] = useMemo(() => (search ? search.search(query) : []), [search, query]);

  const go = (path: string): void => {
    navigate(path);
    setQuery('');
    setOpen(false);
  };

  return (
    <div className={`admin-menu-search${isOpen ? ' is-open' : ''}`}>
      <button
        type="button"
        className="admin-navbar-icon"
        title={t('admin.navbar.search')}
        aria-label={t('admin.navbar.search')}
        aria-expanded={isOpen}
        data-testid="menu-search-toggle"
        onClick={() => setOpen((open) => !open)}
      >
        <SearchOutlined />
      </button>
      {isOpen && (
        <Select
          ref={(instance) => {
            selectRef.current = instance;
          }}
          showSearch
          filterOption={false}
          value={null}
          placeholder={t('admin.navbar.search')}
          aria-label={t('admin.navbar.search')}
          searchValue={query}
          onSearch={setQuery}
          onSelect={(path: string | null) => {
            if (path) go(path);
          }}
          onBlur={() => setOpen(false)}
          notFoundContent={query ? t('admin.navbar.searchEmpty') : null}
          options={results.map((item) => ({
            value: item.path,
            label: (
              <span className="admin-menu-search-result">
                {item.trail.map((group) => (
                  <span key={group} className="admin-menu-search-trail">
                    {group}
                    {TRAIL_SEPARATOR}
                  </span>
                ))}
                {item.title}
              </span>
            ),
          }))}
          className="admin-menu-search-select"
          popupMatchSelectWidth={300}
          defaultActiveFirstOption
          data-testid="menu-search"
        />
      )}
    </div>
  );
}
