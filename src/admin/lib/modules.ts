import type { RegistryWidgetsType, UiSchema, WidgetProps } from '@rjsf/utils';
import type { ComponentType } from 'react';
import type { EntityDef } from '../../engine/index.js';
import type { Language } from '../../web/i18n.js';
import type { RecordAction } from '../entity/extensions.js';
import type { AppRoute } from './menus.js';

/**
 * The admin half of a module (docs/extending.md): what a folder src/modules/<name>/admin.tsx (or
 * <MODULE_DIRS entry>/<name>/admin.tsx) adds to the back-office without editing it, and what the
 * framework's own features register the same way (src/admin/features/<feature>/module.ts).
 */

/** A form widget: an RJSF widget component, used by `x-ui.widget: '<name>'`. */
export type ModuleWidgetComponent = ComponentType<WidgetProps>;

/** A widget the form designer's palette offers (its "module widgets" group). */
export interface WidgetPalette {
  /** i18n key of the palette item and of a new field's title (the module's `messages` may bring it). */
  labelKey: string;
  /** A new field's title in the schema (its English fallback; the designer adds the user's language). */
  title: string;
  /** The field a palette item puts on the canvas, without x-ui.widget (added: the widget's name). */
  schema: Record<string, unknown>;
}

export interface ModuleWidgetDefinition {
  component: ModuleWidgetComponent;
  palette?: WidgetPalette;
}

export type ModuleWidget = ModuleWidgetComponent | ModuleWidgetDefinition;

/** A page opened by a menu whose component is the key; it gets the menu's route. */
export type ModulePage = ComponentType<{ route: AppRoute }>;

/** How a module shows an entity's field in the generated forms (the schema stays as it is). */
export interface ModuleFieldUi {
  /** A built-in or registered widget name. */
  widget?: string;
  /** Merged into the field's ui:options (the widget reads them as `props.options`). */
  options?: Record<string, unknown>;
}

export interface AdminModule {
  /** Form widgets by name: `x-ui.widget: '<name>'` in a schema, or `fields` below. */
  widgets?: Readonly<Record<string, ModuleWidget>>;
  /** Toolbar actions of an entity's generated list about one checked record, by entity name. */
  recordActions?: Readonly<Record<string, readonly RecordAction[]>>;
  /** Pages by menu component (a sysmenu row's component column), each usually `lazy(() => import(…))`. */
  pages?: Readonly<Record<string, ModulePage>>;
  /** Per entity, per field: the widget (and its options) its generated forms use. */
  fields?: Readonly<Record<string, Readonly<Record<string, ModuleFieldUi>>>>;
  /** i18n texts the module's widgets, actions and pages use, per language (merged into the locales). */
  messages?: Partial<Record<Language, Record<string, unknown>>>;
}

/** Declares a module's admin part: `export default defineAdminModule({ widgets, recordActions, pages })`. */
export function defineAdminModule<const M extends AdminModule>(module: M): M {
  return module;
}

/** A widget the palette offers: its name and palette item. */
export interface PaletteWidget extends WidgetPalette {
  name: string;
}

function componentOf(widget: ModuleWidget): ModuleWidgetComponent {
  return typeof widget === 'object' && 'component' in widget ? widget.component : widget;
}

/**
 * The registered modules' widgets, record actions, pages and field overrides. A name registered
 * twice (a widget, a page's component, an entity's action key) is refused with both modules named:
 * a module never silently replaces another's part, nor a built-in widget.
 */
export class AdminRegistry {
  private readonly modules = new Map<string, AdminModule>();
  private readonly widgetOwners = new Map<string, string>();
  private readonly pageOwners = new Map<string, string>();
  private mergedWidgets: RegistryWidgetsType | undefined;
  private readonly listeners = new Set<(module: AdminModule) => void>();

  constructor(private readonly builtInWidgets: RegistryWidgetsType = {}) {}

  /** Adds a module; throws (adding nothing) when one of its names is taken. */
  register(name: string, module: AdminModule): void {
    if (this.modules.has(name)) throw new Error(`admin module ${name} is registered twice`);
    for (const widget of Object.keys(module.widgets ?? {})) {
      if (widget in this.builtInWidgets)
        throw new Error(`module ${name}: widget ${widget} is a built-in widget`);
      const owner = this.widgetOwners.get(widget);
      if (owner) throw new Error(`module ${name}: widget ${widget} is registered by module ${owner}`);
    }
    for (const component of Object.keys(module.pages ?? {})) {
      const owner = this.pageOwners.get(component);
      if (owner) throw new Error(`module ${name}: page ${component} is registered by module ${owner}`);
    }
    for (const [entity, actions] of Object.entries(module.recordActions ?? {})) {
      const keys = new Set(this.recordActions(entity).map((action) => action.key));
      for (const action of actions) {
        if (keys.has(action.key))
          throw new Error(`module ${name}: record action ${entity}.${action.key} is registered twice`);
        keys.add(action.key);
      }
    }
    this.modules.set(name, module);
    for (const widget of Object.keys(module.widgets ?? {})) this.widgetOwners.set(widget, name);
    for (const component of Object.keys(module.pages ?? {})) this.pageOwners.set(component, name);
    this.mergedWidgets = undefined;
    for (const listener of this.listeners) listener(module);
  }

  /** Called with each module registered from now on (the locales take their messages). */
  onRegister(listener: (module: AdminModule) => void): void {
    this.listeners.add(listener);
  }

  moduleNames(): string[] {
    return [...this.modules.keys()];
  }

  /** A registered widget's component (not a built-in one). */
  widget(name: string): ModuleWidgetComponent | undefined {
    const owner = this.widgetOwners.get(name);
    const widget = owner === undefined ? undefined : this.modules.get(owner)?.widgets?.[name];
    return widget === undefined ? undefined : componentOf(widget);
  }

  /** Whether a name is a built-in or registered widget. */
  hasWidget(name: string): boolean {
    return name in this.builtInWidgets || this.widgetOwners.has(name);
  }

  /** The built-in widgets and the registered ones: RJSF's `widgets` (one object until a module registers). */
  widgets(): RegistryWidgetsType {
    if (!this.mergedWidgets) {
      const merged: RegistryWidgetsType = { ...this.builtInWidgets };
      for (const name of this.widgetOwners.keys()) {
        const component = this.widget(name);
        if (component) merged[name] = component;
      }
      this.mergedWidgets = merged;
    }
    return this.mergedWidgets;
  }

  /** The registered widgets' names, in registration order (the meta-schema's list on the server). */
  widgetNames(): string[] {
    return [...this.widgetOwners.keys()];
  }

  /** The registered widgets the designer's palette offers. */
  paletteWidgets(): PaletteWidget[] {
    return [...this.widgetOwners].flatMap(([name, owner]) => {
      const widget = this.modules.get(owner)?.widgets?.[name];
      return widget && typeof widget === 'object' && 'component' in widget && widget.palette
        ? [{ name, ...widget.palette }]
        : [];
    });
  }

  /** An entity's record actions, the modules' in registration order. */
  recordActions(entity: string): readonly RecordAction[] {
    return [...this.modules.values()].flatMap((module) => module.recordActions?.[entity] ?? []);
  }

  /** The page of a menu component. */
  page(component: string): ModulePage | undefined {
    const owner = this.pageOwners.get(component);
    return owner === undefined ? undefined : this.modules.get(owner)?.pages?.[component];
  }

  /** The field overrides of an entity, later modules over earlier ones. */
  fieldUi(entity: string): Record<string, ModuleFieldUi> {
    const fields: Record<string, ModuleFieldUi> = {};
    for (const module of this.modules.values())
      for (const [field, ui] of Object.entries(module.fields?.[entity] ?? {}))
        fields[field] = { ...fields[field], ...ui, options: { ...fields[field]?.options, ...ui.options } };
    return fields;
  }

  /**
   * An entity form's uiSchema (engine uiSchemaOf) with the modules' widgets: a field whose
   * `x-ui.widget` names a registered widget gets it (the engine knows only the built-in ones),
   * and a module's field override sets the widget and adds options.
   */
  uiSchemaFor<T>(entity: EntityDef, ui: UiSchema<T>): UiSchema<T> {
    const overrides = this.fieldUi(entity.name);
    const result: Record<string, unknown> = { ...ui };
    for (const [name, field] of entity.fieldsByName) {
      const current = result[name] as Record<string, unknown> | undefined;
      if (!current || current['ui:field'] !== undefined) continue;
      const hinted = (field.schema['x-ui'] as { widget?: unknown } | undefined)?.widget;
      const override = overrides[name];
      const widget =
        override?.widget ??
        (typeof hinted === 'string' && this.widgetOwners.has(hinted) ? hinted : undefined);
      if (widget === undefined && override?.options === undefined) continue;
      result[name] = {
        ...current,
        ...(widget === undefined ? {} : { 'ui:widget': widget }),
        'ui:options': { ...(current['ui:options'] as object | undefined), ...override?.options },
      };
    }
    return result as UiSchema<T>;
  }
}

/** A module's admin part as the build finds it: a lazily loaded chunk (virtual:ecobid-admin-modules). */
export type AdminModuleLoader = () => Promise<{ default: AdminModule }>;

/**
 * Loads the modules' chunks at once and registers them in their names' order (the order does not
 * depend on which chunk arrives first). A module that fails to load or to register is reported and
 * left out; the others are registered.
 */
export async function loadAdminModules(
  registry: AdminRegistry,
  loaders: Readonly<Record<string, AdminModuleLoader>>,
  report: (name: string, error: unknown) => void,
): Promise<void> {
  const names = Object.keys(loaders).sort();
  const loaded = await Promise.allSettled(names.map((name) => loaders[name]?.()));
  for (const [index, name] of names.entries()) {
    const result = loaded[index];
    try {
      if (result?.status === 'rejected') throw result.reason;
      const module = result?.value?.default;
      if (!module || typeof module !== 'object')
        throw new Error(`module ${name}: admin.tsx has no default export`);
      registry.register(name, module);
    } catch (error) {
      report(name, error);
    }
  }
}
