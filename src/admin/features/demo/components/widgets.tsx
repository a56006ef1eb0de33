import { DragOutlined, VerticalAlignTopOutlined } from '@ant-design/icons';
import {
  Affix,
  Button,
  Col,
  Descriptions,
  FloatButton,
  InputNumber,
  List,
  Modal,
  Row,
  Select,
  Space,
  Statistic,
  Tag,
  Typography,
} from 'antd';
import {
  useCallback,
  useEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type PointerEvent,
  type ReactNode,
} from 'react';
import { useT } from '../../../i18n.js';
import type { AppRoute } from '../../../lib/menus.js';
import { useApp } from '../../../store.js';
import { DemoCard } from './DemoCard.js';

interface Offset {
  x: number;
  y: number;
}

/** Pixels an arrow key moves the dialog. */
const KEY_STEP = 20;

/**
 * A dialog moved by its title bar: dragged with the pointer, or with the arrow keys on the
 * focused handle (the same move without a mouse, WCAG 2.1.1).
 */
function DraggableDialog({
  open,
  title,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  onClose(): void;
  children: ReactNode;
}) {
  const t = useT();
  const [offset, setOffset] = useState<Offset>({ x: 0, y: 0 });
  const drag = useRef<{ pointer: Offset; from: Offset } | undefined>(undefined);
  const clamp = (next: Offset): Offset => ({
    x: Math.max(-window.innerWidth / 2, Math.min(window.innerWidth / 2, next.x)),
    y: Math.max(-80, Math.min(window.innerHeight - 160, next.y)),
  });
  const onPointerDown = (event: PointerEvent<HTMLDivElement>): void => {
    drag.current = { pointer: { x: event.clientX, y: event.clientY }, from: offset };
    event.currentTarget.setPointerCapture(event.pointerId);
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>): void => {
    const start = drag.current;
    if (!start) return;
    setOffset(
      clamp({
        x: start.from.x + event.clientX - start.pointer.x,
        y: start.from.y + event.clientY - start.pointer.y,
      }),
    );
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    const moves: Record<string, Offset> = {
      ArrowLeft: { x: -KEY_STEP, y: 0 },
      ArrowRight: { x: KEY_STEP, y: 0 },
      ArrowUp: { x: 0, y: -KEY_STEP },
      ArrowDown: { x: 0, y: KEY_STEP },
    };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    setOffset((current) => clamp({ x: current.x + move.x, y: current.y + move.y }));
  };
  return (
    <Modal
      open={open}
      onCancel={onClose}
      onOk={onClose}
      afterClose={() => setOffset({ x: 0, y: 0 })}
      title={
        <div
          className="demo-drag-handle"
          role="button"
          tabIndex={0}
          aria-label={t('demoComponents.dragDialog.handle', { title })}
          data-testid="demo-drag-handle"
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={() => (drag.current = undefined)}
          onKeyDown={onKeyDown}
        >
          <DragOutlined aria-hidden /> {title}
        </div>
      }
      modalRender={(node) => (
        <div
          style={{ transform: `translate(${offset.x}px, ${offset.y}px)` }}
          data-testid="demo-drag-dialog"
          data-offset={`${offset.x},${offset.y}`}
        >
          {node}
        </div>
      )}
    >
      {children}
    </Modal>
  );
}

/** Drag dialog: a dialog moved by its title bar. */
export function DragDialogDemo({ route }: { route: AppRoute }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const [region, setRegion] = useState<string>('east');
  const regions = ['east', 'south', 'west', 'north'];
  return (
    <DemoCard route={route} intro={t('demoComponents.dragDialog.intro')}>
      <Button type="primary" onClick={() => setOpen(true)} data-testid="demo-drag-open">
        {t('demoComponents.dragDialog.open')}
      </Button>
      <DraggableDialog
        open={open}
        title={t('demoComponents.dragDialog.title')}
        onClose={() => setOpen(false)}
      >
        <Space direction="vertical" style={{ width: '100%' }}>
          <Typography.Text>{t('demoComponents.dragDialog.body')}</Typography.Text>
          <Select
            aria-label={t('demoComponents.dragDialog.region')}
            value={region}
            onChange={setRegion}
            style={{ width: 200 }}
            options={regions.map((value) => ({
              value,
              label: t(`demoComponents.dragDialog.regions.${value}`),
            }))}
          />
        </Space>
      </DraggableDialog>
    </DemoCard>
  );
}

const easeOut = (progress: number): number => 1 - Math.pow(1 - progress, 3);

/**
 * A number counted from `from` to `to` over `duration` ms (ease-out), restarted by `run`.
 * With reduced motion asked for (WCAG 2.3.3), the end value shows at once.
 */
function useCountTo(from: number, to: number, duration: number) {
  const [value, setValue] = useState(from);
  const [isRunning, setRunning] = useState(false);
  const frame = useRef<number | undefined>(undefined);
  const stop = useCallback(() => {
    if (frame.current !== undefined) cancelAnimationFrame(frame.current);
    frame.current = undefined;
    setRunning(false);
  }, []);
  const run = useCallback(() => {
    stop();
    if (window.matchMedia('(prefers-reduced-motion: reduce)').matches || duration <= 0) {
      setValue(to);
      return;
    }
    const started = performance.now();
    setRunning(true);
    const step = (now: number): void => {
      const progress = Math.min(1, (now - started) / duration);
      setValue(from + (to - from) * easeOut(progress));
      if (progress < 1) frame.current = requestAnimationFrame(step);
      else stop();
    };
    frame.current = requestAnimationFrame(step);
  }, [from, to, duration, stop]);
  useEffect(() => stop, [stop]);
  return { value, isRunning, run, stop, reset: () => (stop(), setValue(from)) };
}

/** Count-to: a number counting up to its value, with start, end and duration to play with. */
export function CountToDemo({ route }: { route: AppRoute }) {
  const t = useT();
  const [from, setFrom] = useState(0);
  const [to, setTo] = useState(2026);
  const [duration, setDuration] = useState(2000);
  const counter = useCountTo(from, to, duration);
  const { run } = counter;
  // counts once on arrival
  const hasRun = useRef(false);
  useEffect(() => {
    if (hasRun.current) return;
    hasRun.current = true;
    run();
  }, [run]);
  return (
    <DemoCard route={route} intro={t('demoComponents.countTo.intro')}>
      <Statistic
        className="demo-count"
        title={t('demoComponents.countTo.value')}
        value={Math.round(counter.value)}
        groupSeparator=","
        valueStyle={{ fontSize: 48 }}
        data-testid="demo-count"
        data-value={Math.round(counter.value)}
      />
      <Space wrap className="demo-controls">
        <label>
          {t('demoComponents.countTo.from')}{' '}
          <InputNumber value={from} onChange={(value) => setFrom(value ?? 0)} />
        </label>
        <label>
          {t('demoComponents.countTo.to')} <InputNumber value={to} onChange={(value) => setTo(value ?? 0)} />
        </label>
        <label>
          {t('demoComponents.countTo.duration')}{' '}
          <InputNumber
            min={0}
            max={60000}
            step={500}
            value={duration}
            onChange={(value) => setDuration(value ?? 0)}
          />
        </label>
        <Button type="primary" onClick={counter.run} data-testid="demo-count-start">
          {t('demoComponents.countTo.start')}
        </Button>
        <Button onClick={counter.stop} disabled={!counter.isRunning}>
          {t('demoComponents.countTo.pause')}
        </Button>
        <Button onClick={counter.reset}>{t('demoComponents.countTo.reset')}</Button>
      </Space>
    </DemoCard>
  );
}

/** Paragraphs long enough to scroll. */
function LongText({ count, prefix }: { count: number; prefix: string }) {
  const t = useT();
  return (
    <List
      dataSource={Array.from({ length: count }, (_, index) => index + 1)}
      renderItem={(index) => (
        <List.Item>
          <Typography.Text>{t(`demoComponents.${prefix}.line`, { index })}</Typography.Text>
        </List.Item>
      )}
    />
  );
}

/** Back-to-top: a button that appears once the page is scrolled down and goes back up smoothly. */
export function BackToTopDemo({ route }: { route: AppRoute }) {
  const t = useT();
  return (
    <DemoCard route={route} intro={t('demoComponents.backToTop.intro')}>
      <LongText count={60} prefix="backToTop" />
      <Button
        icon={<VerticalAlignTopOutlined aria-hidden />}
        onClick={() => window.scrollTo({ top: 0, behavior: 'smooth' })}
      >
        {t('demoComponents.backToTop.button')}
      </Button>
      <FloatButton.BackTop
        visibilityHeight={300}
        className="demo-back-top"
        tooltip={t('demoComponents.backToTop.button')}
        aria-label={t('demoComponents.backToTop.button')}
        data-testid="demo-back-top"
      />
    </DemoCard>
  );
}

/** Header height when the settings fix it (the sticky bar stays below it). */
const FIXED_HEADER_HEIGHT = 84;

/** Sticky: a bar that stays at the top of the window while its page scrolls under it. */
export function StickyDemo({ route }: { route: AppRoute }) {
  const t = useT();
  const app = useApp();
  const [isStuck, setStuck] = useState(false);
  return (
    <DemoCard route={route} intro={t('demoComponents.sticky.intro')}>
      <Affix
        offsetTop={app.settings.fixedHeader ? FIXED_HEADER_HEIGHT : 0}
        onChange={(stuck) => setStuck(stuck === true)}
      >
        <div className={`demo-sticky-bar${isStuck ? ' is-stuck' : ''}`} data-testid="demo-sticky">
          <Space wrap>
            <Tag color={isStuck ? 'blue' : 'default'}>
              {isStuck ? t('demoComponents.sticky.stuck') : t('demoComponents.sticky.free')}
            </Tag>
            <Button size="small">{t('demoComponents.sticky.publish')}</Button>
            <Button size="small">{t('demoComponents.sticky.draft')}</Button>
          </Space>
        </div>
      </Affix>
      <Row gutter={16} className="demo-sticky-body">
        <Col span={24}>
          <Descriptions
            size="small"
            column={1}
            items={[
              {
                key: 'tip',
                label: t('demoComponents.sticky.tipLabel'),
                children: t('demoComponents.sticky.tip'),
              },
            ]}
          />
          <LongText count={50} prefix="sticky" />
        </Col>
      </Row>
    </DemoCard>
  );
}
