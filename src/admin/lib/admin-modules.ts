import { FORM_WIDGETS } from '../entity/widgets.js';
import { AdminRegistry } from './modules.js';

/**
 * The back-office's one registry of modules (lib/modules.ts): the framework's features and the
 * project's modules are registered in it at boot (lib/module-loader.ts), before the first render;
 * forms, lists and the menu page read it.
 */
export const adminModules = new AdminRegistry(FORM_WIDGETS);
