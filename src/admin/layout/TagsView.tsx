import { CloseOutlined } from '@ant-design/icons';
import { Dropdown } from 'antd';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { routeTitle, useT } from '../i18n.js';
import { findPage, flatten, HOME_PATH, isGroup, type AppRoute } from '../lib/menus.js';
import {
  addTag,
  closeAll,
  closeOthers,
  closeTag,
  nextPath,
  uncache,
  withAffixed,
  type Tag,
  type TagsState,
} from '../lib/tags.js';
import { useApp } from '../store.js';
import { useMenus } from './MenuProvider.js';

function tagOf(route: AppRoute, fullPath: string): Tag {
  return {
    fullPath,
    path: route.path,
    code: route.code,
    affix: route.meta.affix === true,
    noCache: route.meta.noCache === true,
  };
}

/** docs/product.md §2.4, §4: the tab strip of visited pages with Refresh / Close / Close Others / Close All. */
export function TagsView() {
  const app = useApp();
  const t = useT();
  const { routes } = useMenus();
  const location = useLocation();
  const navigate = useNavigate();
  const activeRef = useRef<HTMLAnchorElement | null>(null);
  const { tags, setTags } = app;
  const byPath = useMemo(() => new Map(flatten(routes).map((route) => [route.path, route])), [routes]);

  // Affixed routes are always there, first.
  useEffect(() => {
    const affixed = flatten(routes)
      .filter((route) => route.meta.affix && !isGroup(route))
      .map((route) => tagOf(route, route.path));
    setTags((state) => withAffixed(state, affixed));
  }, [routes, setTags]);

  useEffect(() => {
    const route = findPage(routes, location.pathname);
    if (route) setTags((state) => addTag(state, tagOf(route, `${location.pathname}${location.search}`)));
  }, [routes, location.pathname, location.search, setTags]);

  useEffect(() => {
    activeRef.current?.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  }, [location.pathname]);

  const apply = (update: (state: TagsState) => TagsState, activePath = location.pathname): void => {
    const after = update(tags);
    setTags(() => after);
    const next = nextPath(after, activePath, HOME_PATH);
    if (next) navigate(next);
  };

  const refresh = (tag: Tag): void => {
    setTags((state) => uncache(state, tag.code));
    navigate(`/redirect${tag.fullPath}`, { replace: true });
  };

  // The tag whose context menu is open: a right click, or the context-menu key / Shift+F10 on a focused tag.
  const [menuFor, setMenuFor] = useState<string | null>(null);
  const onKeyDown = (event: KeyboardEvent, tag: Tag): void => {
    if (event.key === 'ContextMenu' || (event.shiftKey && event.key === 'F10')) {
      event.preventDefault();
      setMenuFor(tag.path);
    }
  };

  const onMouseUp = (event: MouseEvent, tag: Tag): void => {
    // Middle click closes, as in browsers.
    if (event.button === 1 && !tag.affix) {
      event.preventDefault();
      apply((state) => closeTag(state, tag.path));
    }
  };

  return (
    <div className="admin-tags" data-testid="tags-view">
      <div className="admin-tags-scroll">
        {tags.visited.map((tag) => {
          const route = byPath.get(tag.path);
          const isActive = tag.path === location.pathname;
          return (
            <Dropdown
              key={tag.path}
              trigger={['contextMenu']}
              open={menuFor === tag.path}
              onOpenChange={(open) => setMenuFor(open ? tag.path : null)}
              overlayStyle={{ width: 105 }}
              menu={{
                items: [
                  { key: 'refresh', label: t('admin.tags.refresh') },
                  ...(tag.affix ? [] : [{ key: 'close', label: t('admin.tags.close') }]),
                  { key: 'others', label: t('admin.tags.closeOthers') },
                  { key: 'all', label: t('admin.tags.closeAll') },
                ],
                onClick: ({ key }) => {
                  setMenuFor(null);
                  if (key === 'refresh') refresh(tag);
                  if (key === 'close') apply((state) => closeTag(state, tag.path));
                  if (key === 'others') {
                    setTags((state) => closeOthers(state, tag.path));
                    if (!isActive) navigate(tag.fullPath);
                  }
                  if (key === 'all') apply(closeAll, location.pathname);
                },
              }}
            >
              <Link
                ref={isActive ? activeRef : undefined}
                to={tag.fullPath}
                className={`admin-tag${isActive ? ' is-active' : ''}`}
                onMouseUp={(event) => onMouseUp(event, tag)}
                onKeyDown={(event) => onKeyDown(event, tag)}
                data-path={tag.path}
              >
                {isActive && <span className="admin-tag-dot" />}
                {route ? routeTitle(route) : routeTitle({ code: tag.code, name: tag.code })}
                {!tag.affix && (
                  <CloseOutlined
                    className="admin-tag-close"
                    aria-label={t('admin.tags.close')}
                    onClick={(event) => {
                      event.preventDefault();
                      event.stopPropagation();
                      apply((state) => closeTag(state, tag.path));
                    }}
                  />
                )}
              </Link>
            </Dropdown>
          );
        })}
      </div>
    </div>
  );
}
