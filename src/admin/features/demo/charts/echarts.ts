import { GaugeChart, RadarChart, ScatterChart } from 'echarts/charts';
import { DataZoomComponent, TitleComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { createChart } from '../../../lib/charts.js';

// The demo pages draw what the workbench does plus gauges, radars and scatter points; this
// module is its own chunk, loaded by the demo pages only.
echarts.use([GaugeChart, RadarChart, ScatterChart, TitleComponent, DataZoomComponent]);

export { createChart };
