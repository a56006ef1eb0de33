import { PlayCircleOutlined } from '@ant-design/icons';
import { Button, List, Tour, Typography, type TourProps } from 'antd';
import { useState } from 'react';
import { useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import { DemoCard } from './DemoCard.js';

/** The parts of the shell the tour shows, by their place in the layout (Sidebar, Navbar, TagsView, SettingsPanel). */
const STEPS = [
  { key: 'sidebar', selector: '[data-testid="sidebar"]', placement: 'right' },
  { key: 'hamburger', selector: '[data-testid="hamburger"]', placement: 'bottom' },
  { key: 'breadcrumb', selector: '.admin-breadcrumb', placement: 'bottom' },
  { key: 'search', selector: '[data-testid="menu-search-toggle"]', placement: 'bottom' },
  { key: 'language', selector: '[data-testid="language-select"]', placement: 'bottom' },
  { key: 'avatar', selector: '[data-testid="avatar-menu"]', placement: 'bottomRight' },
  { key: 'tags', selector: '[data-testid="tags-view"]', placement: 'bottom' },
  { key: 'settings', selector: '[data-testid="settings-button"]', placement: 'left' },
] as const;

/**
 * Guide: a step-by-step tour of the shell (antd Tour) over the real sidebar, top bar, tag strip
 * and settings button; parts switched off in the settings (tags, settings button) are left out.
 */
export default function GuideDemo({ route }: { route: AppRoute }) {
  const t = useT();
  const [steps, setSteps] = useState<TourProps['steps']>();
  const start = (): void => {
    const present = STEPS.flatMap((step) => {
      const element = document.querySelector<HTMLElement>(step.selector);
      return element && element.getClientRects().length > 0 ? [{ ...step, element }] : [];
    });
    setSteps(
      present.map(({ key, element, placement }) => ({
        title: t(`demoComponents.guide.steps.${key}.title`),
        description: t(`demoComponents.guide.steps.${key}.text`),
        target: () => element,
        placement,
      })),
    );
  };
  return (
    <DemoCard route={route} intro={t('demoComponents.guide.intro')}>
      <Button
        type="primary"
        icon={<PlayCircleOutlined aria-hidden />}
        onClick={start}
        data-testid="demo-guide-start"
      >
        {t('demoComponents.guide.start')}
      </Button>
      <Typography.Title level={5} className="demo-guide-list-title">
        {t('demoComponents.guide.what')}
      </Typography.Title>
      <List
        size="small"
        dataSource={STEPS.map((step) => step.key)}
        renderItem={(key) => (
          <List.Item>
            <List.Item.Meta
              title={t(`demoComponents.guide.steps.${key}.title`)}
              description={t(`demoComponents.guide.steps.${key}.text`)}
            />
          </List.Item>
        )}
      />
      <Tour
        open={steps !== undefined}
        steps={steps}
        onClose={() => setSteps(undefined)}
        onFinish={() => setSteps(undefined)}
        rootClassName="demo-tour"
      />
    </DemoCard>
  );
}
