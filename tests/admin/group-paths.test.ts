import { describe, expect, it } from 'vitest';
import { firstPageUnder, toRoutes } from '../../src/admin/lib/menus.js';
import type { MenuNode } from '../../src/engine/api-types.js';

let nextId = 1;
function node(
  code: string,
  path: string,
  component: string,
  children: MenuNode[] = [],
  hidden = false,
): MenuNode {
  nextId += 1;
  return {
    id: nextId,
    menuCode: code,
    menuName: code,
    menuPath: path,
    menuComponent: component,
    menuStatus: '1',
    menuSequence: nextId,
    menuMeta: hidden ? { hidden: true } : {},
    children,
  };
}

// SPEC §2.3's dev tools: /codegenerator and /formgenerator are groups of pages.
const routes = toRoutes(
  [
    node('devtool', '/devtool', 'layout', [
      node('codegenerator', '/codegenerator', 'layout', [
        node('generatortemplate', '/codegenerator/generatortemplate', 'devtool/generatortemplate'),
        node('forwardgenerator', '/codegenerator/forwardgenerator', 'devtool/forwardgenerator'),
      ]),
      node('formgenerator', '/formgenerator', 'layout', [
        node('formdesign', '/formgenerator/formdesign', 'devtool/formdesign', [], true),
        node('generatorform', '/formgenerator/generatorform', 'devtool/generatorform'),
      ]),
    ]),
    node('sysuser', '/sysuser', 'entity/sysuser'),
  ],
  ['ROLE_ADMIN'],
);

describe('a group path opens its first page (issue 19.10)', () => {
  it('opens the first child of /codegenerator and the first visible one of /formgenerator', () => {
    expect(firstPageUnder(routes, '/codegenerator')?.path).toBe('/codegenerator/generatortemplate');
    expect(firstPageUnder(routes, '/formgenerator')?.path).toBe('/formgenerator/generatorform');
    expect(firstPageUnder(routes, '/devtool')?.path).toBe('/codegenerator/generatortemplate');
  });

  it('leaves pages and unknown paths alone', () => {
    expect(firstPageUnder(routes, '/sysuser')).toBeUndefined();
    expect(firstPageUnder(routes, '/nowhere')).toBeUndefined();
  });
});
