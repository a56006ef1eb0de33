import { lazy } from 'react';
import { defineAdminModule } from '../../lib/modules.js';

/** The form designer, its preview (constant route /formdesign/preview) and the published forms' list. */
export default defineAdminModule({
  pages: {
    // /formgenerator (a group) opens its first page, this list at /formgenerator/list
    'devtool/formgenerator': lazy(() => import('./published/FormGenerator.js')),
    // 表单管理 (/generatorform): the same list, inside the shell; /generatorform?form=<code> fills one in outside it
    'devtool/generatorform': lazy(() => import('./published/FormGenerator.js')),
    'devtool/formdesign': lazy(() => import('./designer/FormDesigner.js')),
    'formdesign/preview': lazy(() => import('./designer/FormPreviewPage.js')),
  },
});
