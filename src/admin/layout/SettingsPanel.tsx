import { CheckOutlined, SettingOutlined } from '@ant-design/icons';
import { Drawer, Switch } from 'antd';
import { useT } from '../i18n.js';
import { THEME_PRESETS, type Settings } from '../lib/settings.js';
import { readableOnLight } from '../lib/themeTokens.js';
import { useApp } from '../store.js';

type Flag = 'tagsView' | 'fixedHeader' | 'sidebarLogo' | 'supportPinyinSearch';

/** docs/product.md §2.4 right settings panel: theme colour, tags view, fixed header, sidebar logo, pinyin search. */
export function SettingsPanel() {
  const app = useApp();
  const t = useT();
  const flags: Flag[] = [
    'tagsView',
    'fixedHeader',
    'sidebarLogo',
    ...(app.language === 'zh' ? (['supportPinyinSearch'] as const) : []),
  ];
  const set = (change: Partial<Settings>): void => app.updateSettings(change);
  return (
    <>
      {app.settings.showSettings && (
        <button
          type="button"
          className="admin-settings-button"
          // the darkened shade, as primary buttons: the white icon reads 4.5:1 (the preset is 2.8:1)
          style={{ background: readableOnLight(app.settings.theme) }}
          aria-label={t('admin.settings.title')}
          data-testid="settings-button"
          onClick={() => app.setSettingsOpen(true)}
        >
          <SettingOutlined />
        </button>
      )}
      <Drawer
        title={t('admin.settings.title')}
        open={app.isSettingsOpen}
        onClose={() => app.setSettingsOpen(false)}
        width={280}
      >
        <div className="admin-settings-item">
          <span>{t('admin.settings.theme')}</span>
          <div className="admin-swatches">
            {THEME_PRESETS.map((color) => (
              <button
                type="button"
                key={color}
                className="admin-swatch"
                style={{ background: color }}
                aria-label={color}
                aria-pressed={app.settings.theme.toLowerCase() === color.toLowerCase()}
                onClick={() => set({ theme: color })}
              >
                {app.settings.theme.toLowerCase() === color.toLowerCase() && <CheckOutlined />}
              </button>
            ))}
          </div>
        </div>
        {flags.map((flag) => (
          <div className="admin-settings-item" key={flag}>
            <span>{t(`admin.settings.${flag}`)}</span>
            <Switch
              aria-label={t(`admin.settings.${flag}`)}
              checked={app.settings[flag]}
              onChange={(checked) => set({ [flag]: checked })}
            />
          </div>
        ))}
      </Drawer>
    </>
  );
}
