import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { AppRoute } from '../../../lib/menus.js';

/**
 * The template's demo pages (docs/product.md §2.3: examples, tables, nested menus, excel, zip,
 * pdf, tab), by their menu component (src/server/features/demo/seed-data/demo-menus-examples.json);
 * each loads on its page.
 */
export const EXAMPLE_PAGES: Record<string, LazyExoticComponent<ComponentType<{ route: AppRoute }>>> = {
  'demo/example/list': lazy(() => import('./ArticleList.js')),
  'demo/example/create': lazy(() => import('./ArticleEditor.js')),
  'demo/example/edit': lazy(() => import('./ArticleEditor.js')),
  'demo/table/dynamic': lazy(() => import('./DynamicTable.js')),
  'demo/table/drag': lazy(() => import('./DragTable.js')),
  'demo/table/inline-edit': lazy(() => import('./InlineEditTable.js')),
  'demo/table/complex': lazy(() => import('./ComplexTable.js')),
  'demo/nested': lazy(() => import('./NestedPage.js')),
  'demo/excel/export': lazy(() => import('./ExcelExport.js')),
  'demo/excel/selected': lazy(() => import('./ExcelExport.js')),
  'demo/excel/merge-header': lazy(() => import('./ExcelMergeHeader.js')),
  'demo/excel/upload': lazy(() => import('./ExcelUpload.js')),
  'demo/zip': lazy(() => import('./ZipExport.js')),
  'demo/pdf': lazy(() => import('./PdfPage.js')),
  'demo/tab': lazy(() => import('./TabDemo.js')),
};
