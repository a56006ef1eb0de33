import { lazy, type ComponentType } from 'react';

// The screens import their props from record-screen.ts, not from here: this module lazy-loads them.
export type { RecordScreenProps } from './record-screen.js';
import type { RecordScreenProps } from './record-screen.js';

/**
 * A toolbar action of a generated list that opens a hand-written screen about exactly one
 * checked record (docs/product.md §8 "Please check the record!", "Only one record can be checked!"), in a
 * drawer. Modules register them per entity (lib/modules.ts `recordActions`; the rbac lists' own in
 * features/rbac/module.ts); entities without actions get none.
 */
export interface RecordAction {
  key: string;
  /** i18n key of the button and drawer title. */
  titleKey: string;
  /** Menu button code that must be granted to the role (route.buttons), when set. */
  button?: string;
  /** Drawer width in px (default 720). */
  width?: number;
  /** The drawer's screen, usually `lazy(() => import('./MyScreen.js'))`. */
  screen: ComponentType<RecordScreenProps>;
}

/** Every generated list's record history: the audit trail of the checked record (screens/monitor). */
export const HISTORY_ACTION: RecordAction = {
  key: 'history',
  titleKey: 'monitor.audit.history',
  width: 720,
  screen: lazy(() => import('../features/monitor/RecordHistory.js')),
};
