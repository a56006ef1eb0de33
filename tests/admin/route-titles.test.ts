/**
 * Issue 39 point 8: the menus a schema adds (首页图片, 采购公告, 环保闲置设备, 平台公告) have no
 * menus.<code> text; the sidebar, breadcrumb, tab and page title then showed the stored name, which
 * is the seed language's (simplified Chinese), in English and traditional Chinese too.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { changeLanguage, initI18n, routeTitle } from '../../src/admin/i18n.js';
import { menuTitle } from '../../src/admin/lib/screen-parts.js';
import { t } from '../../src/admin/i18n.js';

const schemaMenus = [
  { code: 'homepicture', name: '首页图片', en: 'Home picture', tw: '首頁圖片' },
  { code: 'purchase', name: '采购公告', en: 'Purchase announcement', tw: '採購公告' },
  { code: 'idleequipment', name: '环保闲置设备', en: 'Idle equipment', tw: '環保閒置設備' },
  { code: 'notice', name: '平台公告', en: 'Platform notice', tw: '平台公告' },
];

describe('titles of the menus a schema adds follow the language', () => {
  afterAll(async () => changeLanguage('zh'));

  it.each(['en', 'tw'] as const)('%s', async (language) => {
    await initI18n();
    await changeLanguage(language);
    for (const menu of schemaMenus) {
      expect(routeTitle({ code: menu.code, name: menu.name })).toBe(menu[language]);
      expect(menuTitle(t, { menuCode: menu.code, menuName: menu.name })).toBe(menu[language]);
    }
    // a page with its own menus.<code> text keeps it; an unknown one keeps its stored name
    expect(routeTitle({ code: 'sysuser', name: '用户管理' })).toBe(t('menus.sysuser'));
    expect(routeTitle({ code: 'nosuchmenu', name: '某页面' })).toBe('某页面');
    expect(routeTitle({ code: 'nosuchmenu', name: 'x', meta: { titles: { en: 'Own', tw: 'Own' } } })).toBe(
      'Own',
    );
  });
});
