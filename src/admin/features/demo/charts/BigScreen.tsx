import { FullscreenExitOutlined, FullscreenOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import dayjs from 'dayjs';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { thousands } from '../../../../web/format.js';
import { useT } from '../../../i18n.js';
import { EChart } from '../../../lib/EChart.js';
import type { ChartOption } from '../../../lib/charts.js';
import { useDashboard, type Dashboard } from './api.js';
import { SCREENS, type ScreenName, type ScreenPanel } from './bigscreens.js';
import './charts.css';

/** The stage every big screen is designed on; it is scaled to the space it gets. */
const STAGE = { width: 1920, height: 1080 };
const REFRESH_MS = 30_000;
const DAYS = 30;
const loadCharts = () => import('./echarts.js');
const loadMap = () => import('./china-map.js');

/** Scale and offsets that fit the stage into the host, centred. */
function useStageScale(host: React.RefObject<HTMLDivElement | null>): {
  scale: number;
  left: number;
  top: number;
} {
  const [fit, setFit] = useState({ scale: 0.5, left: 0, top: 0 });
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const measure = (): void => {
      const { width, height } = element.getBoundingClientRect();
      const scale = Math.min(width / STAGE.width, height / STAGE.height) || 0.5;
      setFit({ scale, left: (width - STAGE.width * scale) / 2, top: (height - STAGE.height * scale) / 2 });
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [host]);
  return fit;
}

function useClock(): string {
  const [now, setNow] = useState(() => dayjs());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(dayjs()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  return now.format('YYYY-MM-DD HH:mm:ss');
}

function PanelBody({
  panel,
  data,
  t,
}: {
  panel: ScreenPanel;
  data: Dashboard;
  t: ReturnType<typeof useT>;
}): ReactNode {
  if (panel.stats)
    return (
      <div className="bigscreen-stats">
        {panel.stats(data, t).map((stat) => (
          <div key={stat.label} className="bigscreen-stat">
            <div className="bigscreen-stat-value">
              {thousands(stat.value)}
              {stat.unit && <small>{stat.unit}</small>}
            </div>
            <div className="bigscreen-stat-label">{stat.label}</div>
          </div>
        ))}
      </div>
    );
  if (panel.list) {
    const rows = panel.list(data, t);
    return (
      <ul className="bigscreen-list" aria-label={t(panel.title)}>
        {rows.length === 0 && <li>{t('bigScreen.noRows')}</li>}
        {rows.map((row) => (
          <li key={row.key}>
            <span className="bigscreen-list-main">{row.main}</span>
            <span className="bigscreen-list-side">{row.side}</span>
          </li>
        ))}
      </ul>
    );
  }
  const option: ChartOption | undefined = panel.chart?.(data, t);
  return (
    <EChart
      option={option}
      testId={`bigscreen-${panel.key}`}
      className="bigscreen-chart"
      load={panel.isMap ? loadMap : loadCharts}
      label={t(panel.title)}
    />
  );
}

/**
 * A full-screen dashboard (docs/product.md §2.3 big screens): designed on 1920×1080, scaled to the window
 * (CSS transform), dark, read again every 30 s from the tenant's real figures; the browser's
 * full-screen mode on a button.
 */
export default function BigScreen({ name }: { name: ScreenName }) {
  const t = useT();
  const host = useRef<HTMLDivElement | null>(null);
  const { scale, left, top } = useStageScale(host);
  const clock = useClock();
  const { data, isError } = useDashboard(DAYS, REFRESH_MS);
  const [isFullscreen, setFullscreen] = useState(false);
  const screen = SCREENS[name];
  useEffect(() => {
    const onChange = (): void => setFullscreen(document.fullscreenElement === host.current);
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, []);
  const toggleFullscreen = (): void => {
    if (document.fullscreenElement) void document.exitFullscreen();
    else void host.current?.requestFullscreen();
  };
  return (
    <div className="bigscreen-host" ref={host} data-testid={`bigscreen-${name}`}>
      <div
        className="bigscreen-stage"
        style={{
          width: STAGE.width,
          height: STAGE.height,
          transform: `translate(${left}px, ${top}px) scale(${scale})`,
        }}
      >
        <div className="bigscreen-header">
          <div className="bigscreen-header-side">{clock}</div>
          <h2>{t(`bigScreen.${name}.title`)}</h2>
          <div className="bigscreen-header-side bigscreen-header-right">
            <span>
              {data
                ? t('bigScreen.updatedAt', { time: dayjs(data.generatedAt).format('HH:mm:ss') })
                : isError
                  ? t('bigScreen.loadFailed')
                  : t('charts.loading')}
            </span>
            <Button
              type="text"
              className="bigscreen-button"
              icon={isFullscreen ? <FullscreenExitOutlined /> : <FullscreenOutlined />}
              onClick={toggleFullscreen}
              aria-label={t(isFullscreen ? 'bigScreen.exitFullscreen' : 'bigScreen.fullscreen')}
            />
          </div>
        </div>
        <div
          className="bigscreen-grid"
          style={{ gridTemplateAreas: screen.areas, gridTemplateColumns: screen.columns }}
        >
          {screen.panels.map((panel) => (
            <section key={panel.key} className="bigscreen-panel" style={{ gridArea: panel.key }}>
              <h3>{t(panel.title)}</h3>
              <div className="bigscreen-panel-body">
                {data && <PanelBody panel={panel} data={data} t={t} />}
              </div>
            </section>
          ))}
        </div>
      </div>
    </div>
  );
}
