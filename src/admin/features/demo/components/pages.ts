import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { AppRoute } from '../../../lib/menus.js';

/**
 * The component demo pages of the template (docs/product.md §2.3) by their menu component
 * (seed: src/server/features/demo/menus.ts); each is its own chunk.
 */
type DemoPage = LazyExoticComponent<ComponentType<{ route: AppRoute }>>;

const named = <K extends string>(
  load: () => Promise<Record<K, ComponentType<{ route: AppRoute }>>>,
  name: K,
): DemoPage => lazy(async () => ({ default: (await load())[name] }));

const uploads = () => import('./uploads.js');
const widgets = () => import('./widgets.js');
const errors = () => import('./errors.js');

export const COMPONENT_DEMO_PAGES: Record<string, DemoPage> = {
  'democ/demoupload': named(uploads, 'UploadDemo'),
  'democ/demoavatarupload': named(uploads, 'AvatarUploadDemo'),
  'democ/demorichtext': lazy(() => import('./RichTextDemo.js')),
  'democ/demodragdialog': named(widgets, 'DragDialogDemo'),
  'democ/democountto': named(widgets, 'CountToDemo'),
  'democ/demobacktotop': named(widgets, 'BackToTopDemo'),
  'democ/demosticky': named(widgets, 'StickyDemo'),
  'democ/demo401': named(errors, 'Error401Demo'),
  'democ/demo404': named(errors, 'Error404Demo'),
  'democ/demoerrorlog': named(errors, 'ErrorLogDemo'),
  'democ/demoicons': lazy(() => import('./IconsDemo.js')),
  'democ/demoguide': lazy(() => import('./GuideDemo.js')),
  'democ/demotheme': lazy(() => import('./ThemeDemo.js')),
  'democ/democlipboard': lazy(() => import('./ClipboardDemo.js')),
  'democ/demoi18n': lazy(() => import('./I18nDemo.js')),
};
