import portal from './seed-data/portal.json' with { type: 'json' };
import { insertRecords } from '../../lib/sql/insert-records.js';
import type { Actor } from '../../lib/sql/toolkit.js';
import type { AppContext } from '../../lib/context.js';

interface SeedNotice {
  title: string;
  category: string;
  publisher: string;
  daysAgo: number;
  pinned?: boolean;
  summary: string;
  content: string;
}
interface SeedPicture {
  title: string;
  subtitle: string;
  palette: string[];
  linkUrl: string;
}
interface SeedPurchase {
  title: string;
  projectCode: string;
  buyerName: string;
  category: string;
  purchaseMode: string;
  region: string;
  budget: number;
  daysAgo: number;
  deadlineDays: number;
  contactName: string;
  contactPhone: string;
}
interface SeedIdle {
  name: string;
  category: string;
  model: string;
  condition: string;
  quantity: number;
  price: number;
  location: string;
  seller: string;
  contactPhone: string;
  rank: number;
  daysAgo: number;
  description: string;
}

const DAY = 24 * 60 * 60 * 1000;
const dayFromNow = (days: number): Date => new Date(Date.now() + days * DAY);
const at = (days: number): string => dayFromNow(days).toISOString();

/**
 * Seed texts name years and dates relative to the record's own date ({{year}}, {{lastYear}},
 * {{year-3}}, {{mmdd}}), so a site first started in any year shows believable content: an annual
 * review of the year before, project codes of the day they were published.
 */
function dated<T extends object>(record: T, date: Date): T {
  const year = date.getFullYear();
  const mmdd = `${String(date.getMonth() + 1).padStart(2, '0')}${String(date.getDate()).padStart(2, '0')}`;
  const fill = (text: string): string =>
    text
      .replace(/\{\{year-(\d+)\}\}/g, (_match, back: string) => String(year - Number(back)))
      .replaceAll('{{lastYear}}', String(year - 1))
      .replaceAll('{{year}}', String(year))
      .replaceAll('{{mmdd}}', mmdd);
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [key, typeof value === 'string' ? fill(value) : value]),
  ) as T;
}

/** A decorative banner (gradient and soft hills), so a first start shows a finished home page without image files. */
function bannerImage([dark = '#0b5d46', mid = '#14906b', light = '#7fd3b0']: string[]): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1200 360" preserveAspectRatio="xMidYMid slice">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${dark}"/><stop offset="1" stop-color="${mid}"/></linearGradient></defs>
<rect width="1200" height="360" fill="url(#g)"/>
<circle cx="1010" cy="70" r="150" fill="${light}" opacity=".18"/><circle cx="900" cy="300" r="220" fill="${light}" opacity=".12"/>
<path d="M0 300 C200 240 380 330 600 280 S1000 220 1200 270 V360 H0Z" fill="${light}" opacity=".25"/>
<path d="M0 330 C260 290 460 350 700 320 S1040 300 1200 320 V360 H0Z" fill="#fff" opacity=".12"/>
<g stroke="#fff" stroke-opacity=".55" stroke-width="4" fill="none"><path d="M930 250 V140"/><path d="M930 140 l-40 -30 M930 140 l45 -20 M930 140 l-5 48"/>
<path d="M1040 265 V170"/><path d="M1040 170 l-34 -26 M1040 170 l38 -17 M1040 170 l-4 41"/></g></svg>`;
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg.replace(/\n/g, ''))}`;
}

function purchaseContent(item: SeedPurchase): string {
  const budget = `${(item.budget / 10_000).toLocaleString('zh-CN')} 万元`;
  return [
    `<p>${item.buyerName}就“${item.title}”项目（项目编号：${item.projectCode}）采用${item.purchaseMode}方式进行采购，现邀请符合条件的供应商参加。</p>`,
    '<h3>一、项目概况</h3>',
    `<p>采购品类：${item.category}；项目地点：${item.region}；预算金额：${budget}（含税）。</p>`,
    '<h3>二、供应商资格要求</h3>',
    '<ol><li>具有独立承担民事责任的能力，持有有效的营业执照；</li><li>具备本项目所需的行业资质与相应的履约能力；</li><li>近三年内无重大违法记录，未被列入失信被执行人名单；</li><li>本项目不接受联合体投标。</li></ol>',
    '<h3>三、获取采购文件</h3>',
    '<p>请登录平台供应商中心，在“我的投标”中下载采购文件。投标文件须通过平台在线递交，逾期递交的系统将不予接收。</p>',
    '<h3>四、联系方式</h3>',
    `<p>联系人：${item.contactName}；联系电话：${item.contactPhone}。</p>`,
  ].join('');
}

/** First start: a few real-looking notices, home pictures, purchase announcements and idle equipment. */
export async function seedPortalContent({
  ctx,
  trx,
  actor,
}: {
  ctx: AppContext;
  /** The seed's transaction. */
  trx: AppContext['db'];
  actor: Actor;
}): Promise<void> {
  const { registry } = ctx;
  // A SCHEMAS_DIR without the portal's content schemas simply gets no portal content.
  const seed = async (name: string, records: Record<string, unknown>[]): Promise<void> => {
    const entity = registry.get(name);
    if (entity) await insertRecords({ trx, registry, entity, actor, records });
  };
  await seed(
    'notice',
    (portal.notices as SeedNotice[]).map(({ daysAgo, pinned, ...notice }) => ({
      ...dated(notice, dayFromNow(-daysAgo)),
      publishTime: at(-daysAgo),
      pinned: pinned ?? false,
      published: true,
    })),
  );
  await seed(
    'homepicture',
    (portal.pictures as SeedPicture[]).map(({ palette, ...picture }, index) => ({
      ...picture,
      imageUrl: bannerImage(palette),
      sequence: (index + 1) * 10,
      published: true,
    })),
  );
  await seed(
    'purchase',
    (portal.purchases as SeedPurchase[]).map((seeded) => {
      const { daysAgo, deadlineDays, ...item } = dated(seeded, dayFromNow(-seeded.daysAgo));
      return {
        ...item,
        publishTime: at(-daysAgo),
        deadline: at(deadlineDays),
        content: purchaseContent({ daysAgo, deadlineDays, ...item }),
        published: true,
      };
    }),
  );
  await seed(
    'idleequipment',
    (portal.idle as SeedIdle[]).map(({ daysAgo, ...item }) => ({
      ...dated(item, dayFromNow(-daysAgo)),
      publishTime: at(-daysAgo),
      published: true,
    })),
  );
}
