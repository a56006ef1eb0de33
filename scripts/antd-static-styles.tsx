/**
 * antd's styles for the back-office, taken at build time (for the cold load).
 *
 * antd writes its styles at run time (cssinjs): every component's first render builds its CSS
 * objects, serialises them and inserts a <style> element, 48–62 of them (200–500 KB) on a
 * back-office page, all on the main thread before the first paint. Here every component the
 * back-office uses (and its popup panel, and the parts with their own style hook) is rendered in
 * Node with renderToString under the back-office's own theme (lib/adminTheme.ts, the same
 * function the app's ConfigProvider calls, so the hashes match), and cssinjs's `extractStyle`
 * gives the CSS together with its list of cache paths (`.data-ant-cssinjs-cache-path`). In the
 * browser cssinjs reads that list once and neither generates nor inserts a listed style.
 *
 * A miss costs speed, not looks: another theme colour, reduced motion, a screen's own nested
 * theme or a component left out here is generated at run time as before.
 *
 * Run by vite.config.ts (`virtual:antd-static.css`) in a child process: prints the CSS.
 */
import { createCache, extractStyle, StyleProvider } from '@ant-design/cssinjs';
import * as antd from 'antd';
import type { ComponentType, ReactNode } from 'react';
import { renderToString } from 'react-dom/server';
import { adminTheme } from '../src/admin/lib/adminTheme.js';
import { DEFAULT_SETTINGS } from '../src/admin/lib/settings.js';
import { sidebarMenuTheme } from '../src/admin/layout/sidebarTheme.js';

const { ConfigProvider } = antd;

/**
 * Seldom used, large, or not valid CSS when rendered bare (a Tour panel without its props gave a
 * rule lightningcss refuses): these keep generating at run time on the screens that show them.
 */
const LEFT_OUT = new Set([
  'Tour',
  'Cascader',
  'Transfer',
  'AutoComplete',
  'Calendar',
  'ColorPicker',
  'Mentions',
  'Carousel',
  'QRCode',
  'Watermark',
  'Splitter',
  'Anchor',
  'Affix',
  'BackTop',
  'Rate',
  'Slider',
  'Steps',
]);

/** Not components, or providers only. */
const NOT_RENDERED = new Set([
  'ConfigProvider',
  'message',
  'notification',
  'theme',
  'version',
  'unstableSetRender',
]);

type Renderable = ComponentType<Record<string, unknown>> & {
  _InternalPanelDoNotUseOrYouWillBeFired?: ComponentType<Record<string, unknown>>;
};

function isRenderable(value: unknown): value is Renderable {
  return typeof value === 'function' || (typeof value === 'object' && value !== null && '$$typeof' in value);
}

/** Each exported component and its pure panel (the popup's own styles). */
function components(): ReactNode[] {
  const nodes: ReactNode[] = [];
  for (const [name, value] of Object.entries(antd)) {
    if (NOT_RENDERED.has(name) || LEFT_OUT.has(name) || !/^[A-Z]/.test(name) || !isRenderable(value))
      continue;
    const Component = value;
    nodes.push(<Component key={name} />);
    const Panel = Component._InternalPanelDoNotUseOrYouWillBeFired;
    if (Panel) nodes.push(<Panel key={`${name}-panel`} />);
  }
  return nodes;
}

/** Parts with their own style hook, not reached by rendering their parent bare. */
function parts(): ReactNode {
  const { Layout, Form, Input, Space, Tree, Tag, Table, Typography, Button, Select, Menu, Tooltip, Badge } =
    antd;
  return (
    <>
      <Layout>
        <Layout.Sider />
        <Layout.Header />
        <Layout.Content />
      </Layout>
      <Form>
        <Form.Item label="a" name="a" rules={[{ required: true }]} help="b" validateStatus="error">
          <Input />
        </Form.Item>
      </Form>
      <Input.TextArea />
      <Input.TextArea showCount />
      <Input.Search />
      <Input.Password />
      <Input.OTP />
      <Space.Compact>
        <Input />
        <Button />
      </Space.Compact>
      <Tree.DirectoryTree treeData={[{ key: 'a', title: 'a' }]} />
      <Tag.CheckableTag checked={false} />
      <Typography.Title />
      <Typography.Text />
      <Typography.Paragraph />
      <Typography.Link />
      <Select mode="multiple" value={['a']} options={[{ value: 'a', label: 'a' }]} />
      <Table
        rowSelection={{}}
        columns={[{ key: 'a', dataIndex: 'a', title: 'a', sorter: true, fixed: 'left', width: 10 }]}
        dataSource={[{ key: '1', a: 'a' }]}
        scroll={{ x: 100, y: 100 }}
        virtual
      />
      <Menu mode="inline" items={[{ key: 'a', label: 'a', children: [{ key: 'b', label: 'b' }] }]} />
      <Tooltip open title="a">
        <span />
      </Tooltip>
      <Badge count={1} />
    </>
  );
}

/** The sidebar: its menu and tooltips under the sidebar's nested theme (Sidebar.tsx). */
function sidebar(color: string): ReactNode {
  const { Menu, Tooltip, Layout } = antd;
  return (
    <ConfigProvider theme={sidebarMenuTheme(color)}>
      <Layout.Sider>
        <Menu
          theme="dark"
          mode="inline"
          items={[{ key: 'a', label: 'a', children: [{ key: 'b', label: 'b' }] }]}
        />
        <Menu theme="dark" mode="vertical" inlineCollapsed items={[{ key: 'a', label: 'a' }]} />
      </Layout.Sider>
      <Tooltip open title="a">
        <span />
      </Tooltip>
    </ConfigProvider>
  );
}

export function antdStaticCss(): string {
  const color = DEFAULT_SETTINGS.theme;
  const cache = createCache();
  const silence = console.error;
  // bare components complain about missing props in development builds: not our concern here
  console.error = () => undefined;
  try {
    for (const node of [...components(), parts(), sidebar(color)]) {
      try {
        renderToString(
          <StyleProvider cache={cache}>
            <ConfigProvider theme={adminTheme(color, true)}>{node}</ConfigProvider>
          </StyleProvider>,
        );
      } catch {
        // a component that cannot render bare: left to run time
      }
    }
  } finally {
    console.error = silence;
  }
  return extractStyle(cache, { plain: true, types: ['style', 'token'] });
}

if (process.argv[1] && /antd-static-styles\.tsx$/.test(process.argv[1]))
  process.stdout.write(antdStaticCss());
