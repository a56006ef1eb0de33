import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UiSchema } from '@rjsf/utils';
import type { ComponentType } from 'react';
import { afterAll, describe, expect, it } from 'vitest';
import type { RecordAction, RecordScreenProps } from '../../src/admin/entity/extensions.js';
import { FRAMEWORK_MODULES } from '../../src/admin/features/modules.js';
import {
  AdminRegistry,
  defineAdminModule,
  loadAdminModules,
  type AdminModule,
  type ModulePage,
  type ModuleWidgetComponent,
} from '../../src/admin/lib/modules.js';
import { compileEntities, uiSchemaOf, type EntityDef } from '../../src/engine/index.js';
import { adminModulesCode, findAdminModules, moduleRoots } from '../../scripts/vite-admin-modules.js';
import purchaseExtras, { budgetPercent, grouped } from '../fixtures/modules/purchase-extras/admin.js';
import { realSources } from '../engine/fixtures.js';

/** Components standing for real ones: the registry only keeps and hands them out. */
const Widget: ModuleWidgetComponent = () => null;
const Page: ModulePage = () => null;
const Screen: ComponentType<RecordScreenProps> = () => null;
const BUILT_IN = { text: Widget, updown: Widget };

const action = (key: string): RecordAction => ({ key, titleKey: `x.${key}`, screen: Screen });
const entities = new Map(compileEntities(realSources()).map((entity) => [entity.name, entity]));
const purchase = entities.get('purchase') as EntityDef;

describe('the admin module registry (lib/modules.ts)', () => {
  it('merges registered widgets with the built-in ones under their names', () => {
    const registry = new AdminRegistry(BUILT_IN);
    const before = registry.widgets();
    registry.register('a', defineAdminModule({ widgets: { meter: Widget } }));
    expect(Object.keys(registry.widgets())).toEqual(['text', 'updown', 'meter']);
    expect(registry.widgets()).not.toBe(before);
    expect(registry.widgets()).toBe(registry.widgets());
    expect(registry.widget('meter')).toBe(Widget);
    expect(registry.widget('text')).toBeUndefined();
    expect(registry.hasWidget('text') && registry.hasWidget('meter')).toBe(true);
    expect(registry.widgetNames()).toEqual(['meter']);
  });

  it('refuses a widget, page or record action name taken, naming the module that has it', () => {
    const registry = new AdminRegistry(BUILT_IN);
    registry.register('first', {
      widgets: { meter: Widget },
      pages: { 'x/page': Page },
      recordActions: { sysrole: [action('go')] },
    });
    expect(() => registry.register('second', { widgets: { text: Widget } })).toThrow(
      'module second: widget text is a built-in widget',
    );
    expect(() => registry.register('second', { widgets: { meter: Widget } })).toThrow(
      'module second: widget meter is registered by module first',
    );
    expect(() => registry.register('second', { pages: { 'x/page': Page } })).toThrow(
      'module second: page x/page is registered by module first',
    );
    expect(() => registry.register('second', { recordActions: { sysrole: [action('go')] } })).toThrow(
      'module second: record action sysrole.go is registered twice',
    );
    expect(() => registry.register('first', {})).toThrow('admin module first is registered twice');
    // a refused module added nothing
    expect(registry.moduleNames()).toEqual(['first']);
  });

  it("finds pages by menu component and an entity's record actions in registration order", () => {
    const registry = new AdminRegistry();
    registry.register('a', { pages: { 'shop/report': Page }, recordActions: { sysuser: [action('one')] } });
    registry.register('b', { recordActions: { sysuser: [action('two')], sysrole: [action('three')] } });
    expect(registry.page('shop/report')).toBe(Page);
    expect(registry.page('shop/other')).toBeUndefined();
    expect(registry.recordActions('sysuser').map((item) => item.key)).toEqual(['one', 'two']);
    expect(registry.recordActions('sysorg')).toEqual([]);
  });

  it('gives a form field the widget its x-ui.widget names or a module sets, keeping the engine options', () => {
    const registry = new AdminRegistry(BUILT_IN);
    const base = uiSchemaOf(purchase, 'create') as UiSchema;
    expect(registry.uiSchemaFor(purchase, base)).toEqual(base);
    registry.register('extras', { widgets: { meter: Widget } });
    registry.register('later', {
      fields: { purchase: { budget: { widget: 'meter', options: { limit: '10' } } } },
    });
    const ui = registry.uiSchemaFor(purchase, base) as Record<string, Record<string, unknown>>;
    expect(ui.budget?.['ui:widget']).toBe('meter');
    expect(ui.budget?.['ui:options']).toMatchObject({ limit: '10', exact: { precision: 2 }, span: 12 });
    // the other fields are the engine's, and the engine's uiSchema is not changed
    expect(ui.title).toBe(base.title);
    expect((base.budget as Record<string, unknown>)['ui:widget']).toBe('updown');
    // a schema naming a registered widget in x-ui.widget gets it without any override
    const hinted = {
      ...purchase,
      fieldsByName: new Map(
        [...purchase.fieldsByName].map(([name, field]) => [
          name,
          name === 'region' ? { ...field, schema: { ...field.schema, 'x-ui': { widget: 'meter' } } } : field,
        ]),
      ),
    } as unknown as EntityDef;
    expect(
      (registry.uiSchemaFor(hinted, base) as Record<string, Record<string, unknown>>).region?.['ui:widget'],
    ).toBe('meter');
  });

  it('loads the modules in name order, leaving out (and reporting) one that fails', async () => {
    const registry = new AdminRegistry();
    const reported: string[] = [];
    const slow = (module: AdminModule) => () =>
      new Promise<{ default: AdminModule }>((resolve) => setTimeout(() => resolve({ default: module }), 20));
    await loadAdminModules(
      registry,
      {
        zeta: slow({ recordActions: { sysuser: [action('z')] } }),
        alpha: slow({ recordActions: { sysuser: [action('a')] } }),
        broken: () => Promise.reject(new Error('chunk failed')),
        empty: () => Promise.resolve({} as { default: AdminModule }),
        clash: () => Promise.resolve({ default: { recordActions: { sysuser: [action('z')] } } }),
      },
      (name, error) => reported.push(`${name}: ${(error as Error).message}`),
    );
    // clash comes before zeta by name: zeta's z is the one refused, whichever chunk came first
    expect(registry.moduleNames()).toEqual(['alpha', 'clash']);
    expect(registry.recordActions('sysuser').map((item) => item.key)).toEqual(['a', 'z']);
    expect(reported).toHaveLength(3);
    expect(reported).toContain('broken: chunk failed');
    expect(reported).toContain('empty: module empty: admin.tsx has no default export');
    expect(reported).toContain('zeta: module zeta: record action sysuser.z is registered twice');
  });
});

describe("the framework's own admin modules (src/admin/features/*/module.ts)", () => {
  const registry = new AdminRegistry(BUILT_IN);
  for (const [name, module] of Object.entries(FRAMEWORK_MODULES)) registry.register(name, module);

  it.each([
    'workbench',
    'profile',
    'authority/datapermission',
    'admin/onlinesysuser',
    'mynotification',
    'file/upload-download',
    'file/netdisc',
    'devtool/formgenerator',
    'workflow/model',
    'workflow/processdesign',
    'workflow/task',
    'oa/startprocess',
    'devtool/formdesign',
    'formdesign/preview',
    'devtool/forwardgenerator',
    'devtool/reversegenerator',
    'devtool/generatortemplate',
    'demo/charts/line',
    'demo/bigscreen/construction',
    'demo/report/reportdesigner',
    'report/view',
    'monitor/metrics',
    'monitor/audit',
    'distributedlog/elk',
    'democ/demoupload',
    'demo/example/list',
  ])('open the menu page %s', (component) => {
    expect(registry.page(component)).toBeDefined();
  });

  it('give the rbac lists their record actions, and the user list the two-factor reset', () => {
    const keys = (entity: string) => registry.recordActions(entity).map((item) => item.key);
    expect(keys('sysrole')).toEqual(['authorize']);
    expect(keys('sysuser')).toEqual(['posts', 'roles', 'twoFactor']);
    expect(keys('sysurl')).toEqual(['roles']);
    expect(keys('syspost')).toEqual(['roles']);
    expect(keys('sysmenu')).toEqual(['authority']);
    expect(keys('sysorg')).toEqual(['users']);
    expect(keys('purchase')).toEqual([]);
  });
});

describe('the purchase-extras fixture module (tests/fixtures/modules/purchase-extras/admin.tsx)', () => {
  it('gives the purchase form its budgetMeter widget, offered by the palette, with texts in zh, tw and en', () => {
    const registry = new AdminRegistry(BUILT_IN);
    registry.register('purchase-extras', purchaseExtras);
    const ui = registry.uiSchemaFor(purchase, uiSchemaOf(purchase, 'update') as UiSchema) as Record<
      string,
      Record<string, unknown>
    >;
    expect(ui.budget?.['ui:widget']).toBe('budgetMeter');
    expect(ui.budget?.['ui:options']).toMatchObject({ limit: '5000000.00' });
    expect(registry.paletteWidgets().map((widget) => [widget.name, widget.labelKey])).toEqual([
      ['budgetMeter', 'purchaseExtras.budgetMeter.palette'],
    ]);
    for (const language of ['zh', 'tw', 'en'] as const)
      expect(Object.keys(purchaseExtras.messages[language].purchaseExtras.budgetMeter).sort()).toEqual([
        'bar',
        'ofLimit',
        'over',
        'palette',
      ]);
  });

  it('measures an exact budget against the limit', () => {
    expect(budgetPercent('2500000.00', '5000000.00')).toBe(50);
    expect(budgetPercent('6000000', '5000000.00')).toBe(120);
    expect(budgetPercent(undefined, '5000000.00')).toBe(0);
    expect(budgetPercent('12', '0')).toBe(0);
    expect(grouped('5000000.00')).toBe('5,000,000.00');
    expect(grouped('999')).toBe('999');
    expect(grouped('1234567')).toBe('1,234,567');
  });
});

describe('the build finds the modules (scripts/vite-admin-modules.ts)', () => {
  const root = mkdtempSync(join(tmpdir(), 'ecobid-admin-modules-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const module = (dir: string, name: string, admin = true): void => {
    mkdirSync(join(root, dir, name), { recursive: true });
    if (admin) writeFileSync(join(root, dir, name, 'admin.tsx'), 'export default {};\n');
  };

  it('reads MODULE_DIRS as comma-separated roots after src/modules', () => {
    expect(moduleRoots(undefined)).toEqual(['src/modules']);
    expect(moduleRoots(' tests/fixtures/modules , ,extra')).toEqual([
      'src/modules',
      'tests/fixtures/modules',
      'extra',
    ]);
  });

  it("finds each root's <name>/admin.tsx, skipping folders without one and roots that are not there", () => {
    module('src/modules', 'shop');
    module('src/modules', 'generated', false);
    module('more', 'purchase-extras');
    const found = findAdminModules(root, ['src/modules', 'more', 'missing']);
    expect([...found.keys()]).toEqual(['shop', 'purchase-extras']);
    expect(found.get('purchase-extras')).toBe(join(root, 'more', 'purchase-extras', 'admin.tsx'));
    const code = adminModulesCode(found);
    expect(code).toContain(
      `"shop": () => import(${JSON.stringify(join(root, 'src/modules/shop/admin.tsx'))})`,
    );
    expect(adminModulesCode(new Map())).toBe('export default {\n\n};\n');
  });

  it("finds the modules of a package folder (the code generator's <package>/<entity>/), named <package>-<entity>", () => {
    module('pkgs', 'gen', false);
    module('pkgs', 'gen/gizmo');
    module('pkgs', 'gen/widget', false);
    const found = findAdminModules(root, ['pkgs']);
    expect([...found.keys()]).toEqual(['gen-gizmo']);
    expect(found.get('gen-gizmo')).toBe(join(root, 'pkgs', 'gen', 'gizmo', 'admin.tsx'));
  });

  it('refuses two modules of one name, naming both folders', () => {
    module('other', 'shop');
    expect(() => findAdminModules(root, ['src/modules', 'other'])).toThrow(/two admin modules named shop/);
  });
});
