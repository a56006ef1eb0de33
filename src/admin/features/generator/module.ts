import { lazy } from 'react';
import { defineAdminModule } from '../../lib/modules.js';

/** The code generator's pages. */
export default defineAdminModule({
  pages: {
    'devtool/forwardgenerator': lazy(() => import('./ForwardGenerator.js')),
    'devtool/reversegenerator': lazy(() => import('./ReverseGenerator.js')),
    'devtool/generatortemplate': lazy(() => import('./GeneratorTemplates.js')),
  },
});
