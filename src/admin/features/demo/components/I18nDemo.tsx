import {
  Alert,
  Button,
  DatePicker,
  Descriptions,
  Pagination,
  Popconfirm,
  Radio,
  Space,
  Table,
  Typography,
} from 'antd';
import dayjs from 'dayjs';
import { LANGUAGES, type Language } from '../../../../web/i18n.js';
import { useLanguage, useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import { useApp } from '../../../store.js';
import { DemoCard } from './DemoCard.js';

const LANGUAGE_NAMES: Record<Language, string> = { zh: '简体中文', tw: '繁體中文', en: 'English' };
const LOCALES: Record<Language, string> = { zh: 'zh-CN', tw: 'zh-TW', en: 'en' };
/** A fixed moment, so the page shows the same date in every language. */
const SAMPLE_DATE = new Date(Date.UTC(2026, 10, 24, 6, 30));

/**
 * i18n: the language switch of the top bar, and what follows it: the texts (locales/*.json),
 * dates and numbers in the language's format, and antd's own words (date picker, pagination,
 * empty table, confirmation).
 */
export default function I18nDemo({ route }: { route: AppRoute }) {
  const t = useT();
  const app = useApp();
  const language = useLanguage();
  const locale = LOCALES[language];
  return (
    <DemoCard route={route} intro={t('demoComponents.i18n.intro')}>
      <Radio.Group
        value={app.language}
        optionType="button"
        buttonStyle="solid"
        aria-label={t('demoComponents.i18n.switch')}
        onChange={(event) => void app.setLanguage(event.target.value as Language)}
        options={LANGUAGES.map((value) => ({ value, label: LANGUAGE_NAMES[value] }))}
        data-testid="demo-i18n-switch"
      />
      <Alert
        className="demo-section-title"
        type="info"
        showIcon
        message={t('demoComponents.i18n.greeting')}
        data-testid="demo-i18n-greeting"
      />
      <Descriptions
        bordered
        size="small"
        column={1}
        className="demo-section-title"
        items={[
          {
            key: 'date',
            label: t('demoComponents.i18n.date'),
            children: new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeStyle: 'short' }).format(
              SAMPLE_DATE,
            ),
          },
          {
            key: 'relative',
            label: t('demoComponents.i18n.relative'),
            children: new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }).format(-1, 'day'),
          },
          {
            key: 'number',
            label: t('demoComponents.i18n.number'),
            children: new Intl.NumberFormat(locale, { style: 'currency', currency: 'CNY' }).format(
              1234567.891,
            ),
          },
          {
            key: 'weekday',
            label: t('demoComponents.i18n.weekday'),
            children: dayjs(SAMPLE_DATE).format('dddd'),
          },
        ]}
      />
      <Typography.Title level={5} className="demo-section-title">
        {t('demoComponents.i18n.antd')}
      </Typography.Title>
      <Space direction="vertical" style={{ width: '100%' }}>
        <Space wrap>
          <DatePicker aria-label={t('demoComponents.i18n.date')} />
          <DatePicker.RangePicker aria-label={t('demoComponents.i18n.date')} />
          <Popconfirm title={t('demoComponents.i18n.confirm')}>
            <Button>{t('demoComponents.i18n.delete')}</Button>
          </Popconfirm>
        </Space>
        <Pagination total={500} showSizeChanger showQuickJumper />
        <Table
          size="small"
          columns={[{ title: t('demoComponents.i18n.column'), dataIndex: 'name' }]}
          dataSource={[]}
        />
      </Space>
    </DemoCard>
  );
}
