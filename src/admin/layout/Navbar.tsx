import {
  BugOutlined,
  CaretDownOutlined,
  CaretUpOutlined,
  CompressOutlined,
  ExpandOutlined,
  FontSizeOutlined,
  MenuFoldOutlined,
  MenuUnfoldOutlined,
  TranslationOutlined,
} from '@ant-design/icons';
import { useGetIdentity, useInvalidateAuthStore, useLogout } from '@refinedev/core';
import { useQuery } from '@tanstack/react-query';
import { App, Badge, Breadcrumb, Dropdown, Select } from 'antd';
import { useEffect, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import type { PostOption } from '../../engine/api-types.js';
import { LANGUAGES, type Language } from '../../web/i18n.js';
import { setActingRole } from '../../web/session.js';
import { routeTitle, useT } from '../i18n.js';
import { InboxBell } from '../features/notifications/InboxBell.js';
import { breadcrumbs, findPage, flatten } from '../lib/menus.js';
import { SIZES, type Size } from '../lib/settings.js';
import { emptyTags } from '../lib/tags.js';
import { useApiCall } from '../providers/api.js';
import { forgetUser, type SysUser } from '../providers/auth.js';
import { takeBootstrap } from '../providers/bootstrap.js';
import { useApp } from '../store.js';
import { DEFAULT_AVATAR } from './Logo.js';
import { useMenus } from './MenuProvider.js';
import { MenuSearch } from './MenuSearch.js';

function BreadcrumbBar() {
  const { routes } = useMenus();
  const location = useLocation();
  useT();
  const crumbs = breadcrumbs(routes, location.pathname);
  const all = flatten(routes);
  const title = (code: string): string => {
    const route = all.find((item) => item.code === code);
    return route ? routeTitle(route) : routeTitle({ code, name: code });
  };
  return (
    <Breadcrumb
      className="admin-breadcrumb"
      items={crumbs.map((crumb) => ({
        key: crumb.path,
        title: crumb.isLink ? (
          <Link to={crumb.path}>{title(crumb.code)}</Link>
        ) : (
          <span>{title(crumb.code)}</span>
        ),
      }))}
    />
  );
}

function useFullscreen(): [boolean, () => void] {
  const { message } = App.useApp();
  const t = useT();
  const [isFull, setFull] = useState(false);
  useEffect(() => {
    const onChange = (): void => setFull(document.fullscreenElement !== null);
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, []);
  const toggle = (): void => {
    if (!document.fullscreenEnabled) {
      void message.warning(t('admin.navbar.fullscreenUnsupported'));
      return;
    }
    if (document.fullscreenElement) void document.exitFullscreen();
    else void document.documentElement.requestFullscreen();
  };
  return [isFull, toggle];
}

const LANGUAGE_NAMES: Record<Language, string> = { zh: '简体中文', tw: '繁體中文', en: 'English' };

/**
 * A top-bar select that narrows what the user acts as (a role, a post): "all" or one of them.
 * A change closes the pages of the former scope and returns to the workbench, every scope's.
 */
function ScopeSwitch({
  name,
  value,
  allLabel,
  ariaLabel,
  options,
  onChange,
}: {
  name: 'role' | 'post';
  value: string | undefined;
  allLabel: string;
  ariaLabel: string;
  options: { value: string; label: string }[];
  onChange: (next: string | undefined) => void;
}) {
  const app = useApp();
  const navigate = useNavigate();
  return (
    <Select
      size="small"
      className={`admin-${name}-switch`}
      data-testid={`${name}-switch`}
      value={value ?? ''}
      onChange={(next: string) => {
        onChange(next || undefined);
        app.setTags(() => emptyTags);
        navigate('/workbench');
      }}
      popupMatchSelectWidth={false}
      aria-label={ariaLabel}
      options={[{ value: '', label: allLabel }, ...options]}
    />
  );
}

/**
 * docs/product.md §4 role change: the role the user acts in (sent as RoleCode), then the user info is read
 * again and the routes are regenerated from the menus of that role. Shown to users with several roles.
 */
function RoleSwitch({ user }: { user: SysUser }) {
  const t = useT();
  const { role } = useMenus();
  const invalidateIdentity = useInvalidateAuthStore();
  if (user.roles.length < 2) return null;
  return (
    <ScopeSwitch
      name="role"
      value={role}
      allLabel={t('admin.navbar.allRoles')}
      ariaLabel={t('admin.navbar.roleSwitch')}
      options={user.roles.map((code) => ({
        value: code,
        label: t(`roles.${code}.name`, { defaultValue: code }),
      }))}
      onChange={(next) => {
        setActingRole(next);
        forgetUser();
        void invalidateIdentity();
      }}
    />
  );
}

/**
 * docs/product.md §2.4 post-switch select: the posts the user holds (queryPostOptions); choosing one
 * narrows the menus to the roles of that post (queryCurrentAuthority with postCode).
 */
function PostSwitch({ user }: { user: SysUser }) {
  const t = useT();
  const { post, setPost } = useMenus();
  const call = useApiCall();
  const { data: posts = [] } = useQuery({
    queryKey: ['admin', 'post-options', user.id],
    // the posts the server put in the page (providers/bootstrap.ts) on the first ask
    queryFn: () =>
      Promise.resolve(takeBootstrap('posts')).then(
        (seeded) =>
          seeded ??
          call<PostOption[]>({
            method: 'get',
            url: '/api/account/sysuserdetail/queryPostOptions',
            isSilent: true,
          }),
      ),
    staleTime: 5 * 60_000,
    retry: false,
  });
  if (posts.length === 0) return null;
  return (
    <ScopeSwitch
      name="post"
      value={post}
      allLabel={t('admin.navbar.allPosts')}
      ariaLabel={t('admin.navbar.postSwitch')}
      options={posts.map((item) => ({ value: item.postCode, label: item.postName }))}
      onChange={setPost}
    />
  );
}

export interface NavbarProps {
  onChangePassword(): void;
  onShowErrorLog(): void;
}

/** docs/product.md §2.4 top bar. */
export function Navbar({ onChangePassword, onShowErrorLog }: NavbarProps) {
  const app = useApp();
  const t = useT();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const location = useLocation();
  const { routes, topMenu, setTopMenu } = useMenus();
  const { data: user } = useGetIdentity<SysUser>();
  const { mutate: logout } = useLogout();
  const [isFull, toggleFullscreen] = useFullscreen();
  const [isUserMenuOpen, setUserMenuOpen] = useState(false);
  const [avatar, setAvatar] = useState<string>(DEFAULT_AVATAR);

  useEffect(() => setAvatar(user?.avatar || DEFAULT_AVATAR), [user?.avatar]);

  const groups = routes.filter((route) => route.children.length > 0);
  const isMobile = app.device === 'mobile';
  const inbox = flatten(routes).find((route) => route.code === 'mynotification');

  const changeSize = (size: Size): void => {
    app.setSize(size);
    void message.success(t('admin.navbar.sizeChanged'));
    // docs/product.md §4: the current view reloads through /redirect.
    navigate(`/redirect${location.pathname}${location.search}`, { replace: true });
  };

  const changeLanguage = (language: Language): void => {
    void app.setLanguage(language).then(() => message.success(t('admin.navbar.languageChanged')));
  };

  return (
    <div className="admin-navbar">
      {/* the top bar's icons are buttons: reachable and pressed with the keyboard (WCAG 2.1.1) */}
      <button
        type="button"
        className="admin-hamburger admin-navbar-icon"
        aria-label={t('admin.navbar.toggleSidebar')}
        aria-expanded={app.isSidebarOpened}
        data-testid="hamburger"
        onClick={app.toggleSidebar}
      >
        {app.isSidebarOpened ? <MenuFoldOutlined /> : <MenuUnfoldOutlined />}
      </button>
      <BreadcrumbBar />
      <div className="admin-navbar-right">
        {!isMobile && groups.length > 1 && (
          <Select
            size="small"
            className="admin-menu-switch"
            value={topMenu ?? ''}
            onChange={(value: string) => setTopMenu(value || undefined)}
            popupMatchSelectWidth={false}
            options={[
              { value: '', label: t('admin.navbar.allMenus') },
              ...groups.map((route) => ({ value: route.code, label: routeTitle(route) })),
            ]}
            aria-label={t('admin.navbar.menuSwitch')}
          />
        )}
        {!isMobile && user && <RoleSwitch user={user} />}
        {!isMobile && user && <PostSwitch user={user} />}
        <MenuSearch />
        {inbox && <InboxBell path={inbox.path} />}
        {app.errorLog.length > 0 && (
          <Badge count={app.errorLog.length} size="small" offset={[-4, 4]}>
            <button
              type="button"
              className="admin-navbar-icon admin-bug"
              title={t('admin.errorLog.title')}
              aria-label={t('admin.errorLog.title')}
              onClick={onShowErrorLog}
            >
              <BugOutlined />
            </button>
          </Badge>
        )}
        {!isMobile && (
          <button
            type="button"
            className="admin-navbar-icon"
            title={t('admin.navbar.fullscreen')}
            aria-label={t('admin.navbar.fullscreen')}
            aria-pressed={isFull}
            onClick={toggleFullscreen}
          >
            {isFull ? <CompressOutlined /> : <ExpandOutlined />}
          </button>
        )}
        {!isMobile && (
          <Dropdown
            trigger={['click']}
            menu={{
              selectable: true,
              selectedKeys: [app.size],
              items: SIZES.map((size) => ({ key: size, label: t(`admin.size.${size}`) })),
              onClick: ({ key }) => changeSize(key as Size),
            }}
          >
            <button
              type="button"
              className="admin-navbar-icon"
              title={t('admin.navbar.size')}
              aria-label={t('admin.navbar.size')}
              data-testid="size-select"
            >
              <FontSizeOutlined />
            </button>
          </Dropdown>
        )}
        <Dropdown
          trigger={['click']}
          menu={{
            selectable: true,
            selectedKeys: [app.language],
            items: LANGUAGES.map((language) => ({ key: language, label: LANGUAGE_NAMES[language] })),
            onClick: ({ key }) => changeLanguage(key as Language),
          }}
        >
          <button
            type="button"
            className="admin-navbar-icon"
            title={t('admin.navbar.language')}
            aria-label={t('admin.navbar.language')}
            data-testid="language-select"
          >
            <TranslationOutlined />
          </button>
        </Dropdown>
        <Dropdown
          trigger={['click']}
          onOpenChange={setUserMenuOpen}
          menu={{
            items: [
              { key: 'profile', label: t('admin.navbar.profile') },
              { key: 'password', label: t('admin.navbar.changePassword') },
              { key: 'home', label: t('admin.navbar.home') },
              { type: 'divider' },
              { key: 'logout', label: t('admin.navbar.logout'), danger: true },
            ],
            onClick: ({ key }) => {
              if (key === 'profile') navigate('/profile/index');
              if (key === 'password') onChangePassword();
              if (key === 'home') navigate('/workbench');
              if (key === 'logout') logout();
            },
          }}
        >
          <button
            type="button"
            className={`admin-avatar${isUserMenuOpen ? ' is-open' : ''}`}
            aria-label={isMobile ? t('admin.navbar.profile') : undefined}
            data-testid="avatar-menu"
          >
            <img src={avatar} alt="" onError={() => setAvatar(DEFAULT_AVATAR)} />
            {!isMobile && <span className="admin-username">{user?.nickname || user?.username}</span>}
            {isUserMenuOpen ? <CaretUpOutlined /> : <CaretDownOutlined />}
          </button>
        </Dropdown>
      </div>
    </div>
  );
}

/** The title of the current page for the document title and the page header. */
export function usePageTitle(): string | undefined {
  const { routes } = useMenus();
  const location = useLocation();
  useT();
  const page = findPage(routes, location.pathname);
  return page ? routeTitle(page) : undefined;
}
