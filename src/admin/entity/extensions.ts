import type { BaseRecord } from '@refinedev/core';
import type { ComponentType, LazyExoticComponent } from 'react';

/** What a screen opened from a generated list receives. */
export interface RecordScreenProps {
  /** The one checked record of the list. */
  record: BaseRecord;
  /** The entity name of the list (e.g. sysrole). */
  resource: string;
  /** Closes the drawer; `hasChanged` refreshes the list. */
  onClose: (hasChanged?: boolean) => void;
}

/**
 * A toolbar action of a generated list that opens a hand-written screen about exactly one
 * checked record (SPEC §8 "Please check the record!", "Only one record can be checked!"), in a
 * drawer. Entities without actions get none: the generated screen does not depend on them.
 */
export interface RecordAction {
  key: string;
  /** i18n key of the button and drawer title. */
  titleKey: string;
  /** Menu button code that must be granted to the role (route.buttons), when set. */
  button?: string;
  /** Drawer width in px (default 720). */
  width?: number;
  screen: LazyExoticComponent<ComponentType<RecordScreenProps>>;
}

/** The record actions of each entity, by entity name. */
export const RECORD_ACTIONS: Readonly<Record<string, readonly RecordAction[]>> = {};
