import { CopyOutlined } from '@ant-design/icons';
import { App, Button, Input, Space, Typography } from 'antd';
import { useState } from 'react';
import { useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import { copyText } from './clipboard.js';
import { DemoCard } from './DemoCard.js';

/** Clipboard: copy what was typed with a button, or a value with antd's copy icon. */
export default function ClipboardDemo({ route }: { route: AppRoute }) {
  const t = useT();
  const { message } = App.useApp();
  const [text, setText] = useState(() => t('demoComponents.clipboard.sample'));
  const copy = (): void => {
    copyText(text).then(
      () => void message.success(t('demoComponents.clipboard.copied')),
      () => void message.error(t('demoComponents.clipboard.failed')),
    );
  };
  return (
    <DemoCard route={route} intro={t('demoComponents.clipboard.intro')}>
      <Space.Compact style={{ width: '100%', maxWidth: 560 }}>
        <Input
          value={text}
          onChange={(event) => setText(event.target.value)}
          aria-label={t('demoComponents.clipboard.text')}
          data-testid="demo-clipboard-text"
        />
        <Button
          type="primary"
          icon={<CopyOutlined aria-hidden />}
          onClick={copy}
          data-testid="demo-clipboard-copy"
        >
          {t('demoComponents.clipboard.copy')}
        </Button>
      </Space.Compact>
      <Typography.Title level={5} className="demo-section-title">
        {t('demoComponents.clipboard.iconTitle')}
      </Typography.Title>
      <Typography.Paragraph
        copyable={{
          text: window.location.href,
          tooltips: [t('demoComponents.clipboard.copy'), t('demoComponents.clipboard.copied')],
        }}
      >
        {t('demoComponents.clipboard.address')} {window.location.href}
      </Typography.Paragraph>
      <Input.TextArea
        rows={3}
        placeholder={t('demoComponents.clipboard.paste')}
        aria-label={t('demoComponents.clipboard.paste')}
        style={{ maxWidth: 560 }}
      />
    </DemoCard>
  );
}
