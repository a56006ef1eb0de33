import { describe, expect, it } from 'vitest';
import {
  addTag,
  closeAll,
  closeOthers,
  closeTag,
  emptyTags,
  nextPath,
  uncache,
  withAffixed,
  type Tag,
} from '../../src/admin/lib/tags.js';

const tag = (path: string, extra: Partial<Tag> = {}): Tag => ({
  fullPath: path,
  path,
  code: path.slice(1),
  affix: false,
  noCache: false,
  ...extra,
});

const home = tag('/workbench', { affix: true });
const users = tag('/sysuser');
const roles = tag('/sysrole');
const details = tag('/details', { noCache: true });

const opened = [users, roles, details].reduce(addTag, withAffixed(emptyTags, [home]));

describe('tags view (SPEC §2.4, §4)', () => {
  it('adds visited pages once and caches all but noCache routes', () => {
    expect(opened.visited.map((item) => item.path)).toEqual([
      '/workbench',
      '/sysuser',
      '/sysrole',
      '/details',
    ]);
    expect(opened.cached).toEqual(['workbench', 'sysuser', 'sysrole']);
    const again = addTag(opened, { ...users, fullPath: '/sysuser?page=2' });
    expect(again.visited).toHaveLength(4);
    expect(again.visited[1]?.fullPath).toBe('/sysuser?page=2');
  });

  it('affixed tags lead and survive every close', () => {
    const late = withAffixed(addTag(emptyTags, users), [home]);
    expect(late.visited.map((item) => item.path)).toEqual(['/workbench', '/sysuser']);
    expect(closeTag(opened, '/workbench').visited.map((item) => item.path)).toContain('/workbench');
    expect(closeAll(opened).visited.map((item) => item.path)).toEqual(['/workbench']);
    expect(closeAll(opened).cached).toEqual(['workbench']);
    expect(closeOthers(opened, '/sysrole').visited.map((item) => item.path)).toEqual([
      '/workbench',
      '/sysrole',
    ]);
  });

  it('closing the active tag goes to the last one; closing another stays', () => {
    const after = closeTag(opened, '/details');
    expect(nextPath(after, '/details', '/workbench')).toBe('/sysrole');
    expect(nextPath(closeTag(opened, '/sysuser'), '/details', '/workbench')).toBeUndefined();
    expect(nextPath({ visited: [], cached: [] }, '/x', '/workbench')).toBe('/workbench');
  });

  it('refresh drops the page from the cache', () => {
    expect(uncache(opened, 'sysuser').cached).toEqual(['workbench', 'sysrole']);
  });
});
