import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

/**
 * The back-office's registry of generated modules made before they were module folders
 * (generators/; a folder with an admin.tsx registers its page itself). A module generated
 * into src/modules/<package>/<entity>/ (the forward generator's default place) is mounted at the
 * menu component '<package>/<entity>' that its menu.sql inserts: drop the module in, run its
 * menu.sql, rebuild, and its list (with its form) opens from the menu. Vite finds the modules'
 * list pages at build time; each becomes a chunk of its own, loaded when its menu is opened, so
 * the first load does not grow. No module in the tree: an empty registry.
 */
const LIST_PAGES = import.meta.glob<{ default: ComponentType }>('../../modules/*/*/*List.tsx');
// Modules generated since issue 35 are module folders: their admin.tsx registers the page itself.
const ADMIN_PARTS = Object.keys(import.meta.glob('../../modules/*/*/admin.tsx'));

/**
 * '<package>/<entity folder>' → the module's list page, from a glob key like
 * ../../modules/shop/gizmo/GizmoList.tsx; folders with an admin.tsx (in `withAdmin`) are left to it.
 */
export function generatedPagesOf(
  found: Record<string, () => Promise<{ default: ComponentType }>>,
  withAdmin: readonly string[] = [],
): Record<string, LazyExoticComponent<ComponentType>> {
  const pages: Record<string, LazyExoticComponent<ComponentType>> = {};
  const folders = new Set(withAdmin.map((path) => path.slice(0, path.lastIndexOf('/'))));
  for (const [path, load] of Object.entries(found)) {
    const match = /\/modules\/([^/]+)\/([^/]+)\/[A-Za-z0-9]+List\.tsx$/.exec(path);
    if (match && !folders.has(path.slice(0, path.lastIndexOf('/'))))
      pages[`${match[1] ?? ''}/${match[2] ?? ''}`] = lazy(load);
  }
  return pages;
}

export const GENERATED_PAGES = generatedPagesOf(LIST_PAGES, ADMIN_PARTS);
