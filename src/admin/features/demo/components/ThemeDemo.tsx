import { CheckOutlined } from '@ant-design/icons';
import {
  Alert,
  Button,
  Card,
  ColorPicker,
  ConfigProvider,
  Divider,
  Input,
  Pagination,
  Select,
  Slider,
  Space,
  Switch,
  Tag,
  theme as antdTheme,
  Typography,
} from 'antd';
import { useState } from 'react';
import { useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import { THEME_PRESETS } from '../../../lib/settings.js';
import { readableOnLight } from '../../../lib/themeTokens.js';
import { useApp } from '../../../store.js';
import { DemoCard } from './DemoCard.js';

interface Tokens {
  borderRadius: number;
  fontSize: number;
  isCompact: boolean;
}

const DEFAULT_TOKENS: Tokens = { borderRadius: 4, fontSize: 14, isCompact: false };

/** Components whose look follows the tokens. */
function Sample() {
  const t = useT();
  return (
    <Space direction="vertical" style={{ width: '100%' }} data-testid="demo-theme-sample">
      <Space wrap>
        <Button type="primary">{t('demoComponents.theme.primary')}</Button>
        <Button>{t('demoComponents.theme.default')}</Button>
        <Button type="link">{t('demoComponents.theme.link')}</Button>
        <Switch defaultChecked aria-label={t('demoComponents.theme.switch')} />
        <Tag color="blue">{t('demoComponents.theme.tag')}</Tag>
      </Space>
      <Space wrap>
        <Input
          placeholder={t('demoComponents.theme.input')}
          aria-label={t('demoComponents.theme.input')}
          style={{ width: 200 }}
        />
        <Select
          aria-label={t('demoComponents.theme.select')}
          defaultValue="a"
          style={{ width: 160 }}
          options={['a', 'b', 'c'].map((value) => ({
            value,
            label: `${t('demoComponents.theme.option')} ${value.toUpperCase()}`,
          }))}
        />
      </Space>
      <Alert type="info" showIcon message={t('demoComponents.theme.alert')} />
      <Pagination defaultCurrent={2} total={50} />
    </Space>
  );
}

/**
 * Theme: the shell's theme colour (the settings panel's presets or any colour, applied to the
 * whole back-office at once and remembered), and antd tokens (corner radius, font size, compact
 * spacing) changed live on a sample of components.
 */
export default function ThemeDemo({ route }: { route: AppRoute }) {
  const t = useT();
  const app = useApp();
  const [tokens, setTokens] = useState<Tokens>(DEFAULT_TOKENS);
  const current = app.settings.theme.toLowerCase();
  const set = (change: Partial<Tokens>): void => setTokens((previous) => ({ ...previous, ...change }));
  return (
    <DemoCard route={route} intro={t('demoComponents.theme.intro')}>
      <Typography.Title level={5}>{t('demoComponents.theme.shell')}</Typography.Title>
      <Space wrap align="center">
        <div className="admin-swatches">
          {THEME_PRESETS.map((color) => (
            <button
              type="button"
              key={color}
              className="admin-swatch"
              style={{ background: color }}
              aria-label={color}
              aria-pressed={current === color.toLowerCase()}
              onClick={() => app.updateSettings({ theme: color })}
              data-testid={`demo-theme-${color.slice(1)}`}
            >
              {current === color.toLowerCase() && <CheckOutlined />}
            </button>
          ))}
        </div>
        <ColorPicker
          value={app.settings.theme}
          disabledAlpha
          showText
          onChangeComplete={(color) => app.updateSettings({ theme: color.toHexString().slice(0, 7) })}
          aria-label={t('demoComponents.theme.custom')}
        />
        <Typography.Text data-testid="demo-theme-current">
          {t('demoComponents.theme.applied', {
            color: app.settings.theme,
            text: readableOnLight(app.settings.theme),
          })}
        </Typography.Text>
      </Space>
      <Divider />
      <Typography.Title level={5}>{t('demoComponents.theme.tokens')}</Typography.Title>
      <div className="demo-theme-controls">
        <label>
          <span>{t('demoComponents.theme.borderRadius', { value: tokens.borderRadius })}</span>
          <Slider
            min={0}
            max={16}
            value={tokens.borderRadius}
            onChange={(value) => set({ borderRadius: value })}
            ariaLabelForHandle={t('demoComponents.theme.borderRadius', { value: tokens.borderRadius })}
          />
        </label>
        <label>
          <span>{t('demoComponents.theme.fontSize', { value: tokens.fontSize })}</span>
          <Slider
            min={12}
            max={18}
            value={tokens.fontSize}
            onChange={(value) => set({ fontSize: value })}
            ariaLabelForHandle={t('demoComponents.theme.fontSize', { value: tokens.fontSize })}
          />
        </label>
        <label className="demo-theme-switch">
          <span>{t('demoComponents.theme.compact')}</span>
          <Switch
            checked={tokens.isCompact}
            onChange={(checked) => set({ isCompact: checked })}
            aria-label={t('demoComponents.theme.compact')}
          />
        </label>
        <Button onClick={() => setTokens(DEFAULT_TOKENS)}>{t('demoComponents.theme.reset')}</Button>
      </div>
      <ConfigProvider
        theme={{
          token: { borderRadius: tokens.borderRadius, fontSize: tokens.fontSize },
          algorithm: tokens.isCompact
            ? [antdTheme.defaultAlgorithm, antdTheme.compactAlgorithm]
            : antdTheme.defaultAlgorithm,
        }}
      >
        <Card size="small" title={t('demoComponents.theme.preview')} className="demo-theme-preview">
          <Sample />
        </Card>
      </ConfigProvider>
    </DemoCard>
  );
}
