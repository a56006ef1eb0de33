import PROJECT_MODULES from 'virtual:ecobid-admin-modules';
import { FRAMEWORK_MODULES } from '../features/modules.js';
import { addModuleTexts } from '../i18n.js';
import { adminModules } from './admin-modules.js';
import { loadAdminModules } from './modules.js';

/**
 * Registers the framework's modules and loads the project's (each a chunk of its own, found by the
 * build: src/modules/<name>/admin.tsx and <MODULE_DIRS entry>/<name>/admin.tsx, scripts/vite-admin-modules.ts).
 * Awaited before the first render, beside the texts: a form, list or menu page never renders
 * before the widgets, actions and pages it may name are known. No module: nothing to wait for.
 */
export function registerAdminModules(): Promise<void> {
  adminModules.onRegister((module) => {
    if (module.messages) addModuleTexts(module.messages);
  });
  for (const [name, module] of Object.entries(FRAMEWORK_MODULES)) adminModules.register(name, module);
  return loadAdminModules(adminModules, PROJECT_MODULES, (name, error) =>
    console.error(`admin module ${name} is left out:`, error),
  );
}
