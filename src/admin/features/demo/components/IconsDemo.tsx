import { Empty, Input, Typography, App } from 'antd';
import { useMemo, useState } from 'react';
import { useT } from '../../../i18n.js';
import { ICON_NAMES, MenuIcon } from '../../../layout/icons.js';
import type { AppRoute } from '../../../lib/menus.js';
import { copyText } from './clipboard.js';
import { DemoCard } from './DemoCard.js';

/**
 * Icons: the set the back-office bundles (menu icons, by the names stored in sys_menu.menu_icon),
 * searchable; a click copies the name to put into a menu.
 */
export default function IconsDemo({ route }: { route: AppRoute }) {
  const t = useT();
  const { message } = App.useApp();
  const [query, setQuery] = useState('');
  const shown = useMemo(() => {
    const wanted = query.trim().toLowerCase();
    return ICON_NAMES.filter((name) => name.includes(wanted)).sort();
  }, [query]);
  const copy = (name: string): void => {
    copyText(name).then(
      () => void message.success(t('demoComponents.icons.copied', { name })),
      () => void message.error(t('demoComponents.clipboard.failed')),
    );
  };
  return (
    <DemoCard route={route} intro={t('demoComponents.icons.intro', { count: ICON_NAMES.length })}>
      <Input.Search
        allowClear
        className="demo-icon-search"
        placeholder={t('demoComponents.icons.search')}
        aria-label={t('demoComponents.icons.search')}
        value={query}
        onChange={(event) => setQuery(event.target.value)}
        data-testid="demo-icon-search"
      />
      {shown.length === 0 ? (
        <Empty description={t('demoComponents.icons.none')} />
      ) : (
        <ul className="demo-icons" data-testid="demo-icons">
          {shown.map((name) => (
            <li key={name}>
              <button
                type="button"
                className="demo-icon"
                onClick={() => copy(name)}
                aria-label={t('demoComponents.icons.copy', { name })}
                data-icon={name}
              >
                <span className="demo-icon-glyph" aria-hidden>
                  <MenuIcon name={name} />
                </span>
                <Typography.Text className="demo-icon-name">{name}</Typography.Text>
              </button>
            </li>
          ))}
        </ul>
      )}
    </DemoCard>
  );
}
