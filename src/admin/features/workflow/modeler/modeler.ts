import BpmnModeler from 'bpmn-js/lib/Modeler';
import lintModule from 'bpmn-js-bpmnlint';
import {
  BpmnPropertiesPanelModule,
  BpmnPropertiesProviderModule,
  CamundaPlatformPropertiesProviderModule,
} from 'bpmn-js-properties-panel';
import conditionalFlows from 'bpmnlint/rules/conditional-flows';
import endEventRequired from 'bpmnlint/rules/end-event-required';
import noDisconnected from 'bpmnlint/rules/no-disconnected';
import noDuplicateSequenceFlows from 'bpmnlint/rules/no-duplicate-sequence-flows';
import noOverlappingElements from 'bpmnlint/rules/no-overlapping-elements';
import singleBlankStartEvent from 'bpmnlint/rules/single-blank-start-event';
import startEventRequired from 'bpmnlint/rules/start-event-required';
import superfluousGateway from 'bpmnlint/rules/superfluous-gateway';
import camundaBehaviors from 'camunda-bpmn-js-behaviors/lib/camunda-platform';
import camundaModdle from 'camunda-bpmn-moddle/resources/camunda.json';
import { drawProcesses, linkFlows, type Moddled } from './layout.js';
import { lintConfig } from './lint.js';
import { pickerProviderModule } from './panel-provider.js';
import { translateModule, type ModelerLanguage } from './translations.js';

import 'bpmn-js/dist/assets/diagram-js.css';
import 'bpmn-js/dist/assets/bpmn-js.css';
import 'bpmn-js/dist/assets/bpmn-font/css/bpmn-embedded.css';
import '@bpmn-io/properties-panel/dist/assets/properties-panel.css';
import 'bpmn-js-bpmnlint/dist/assets/css/bpmn-js-bpmnlint.css';

/**
 * The bpmn-js modeler of processdesign with the Camunda 7 properties and behaviours, the linter
 * and our translations. Everything bpmn-io is imported here only, so it loads with this page.
 */

const RULES = {
  'conditional-flows': conditionalFlows,
  'end-event-required': endEventRequired,
  'no-disconnected': noDisconnected,
  'no-duplicate-sequence-flows': noDuplicateSequenceFlows,
  'no-overlapping-elements': noOverlappingElements,
  'single-blank-start-event': singleBlankStartEvent,
  'start-event-required': startEventRequired,
  'superfluous-gateway': superfluousGateway,
};

/**
 * `language` and `t` are read each time a text is needed: a language switch changes what they
 * answer, then `relabel` shows it, keeping the diagram and its undo history.
 */
export function createModeler(options: {
  canvas: HTMLElement;
  panel: HTMLElement;
  language: () => ModelerLanguage;
  t: (key: string, options?: Record<string, unknown>) => string;
}): BpmnModeler {
  const modeler = new BpmnModeler({
    container: options.canvas,
    propertiesPanel: { parent: options.panel },
    linting: { bpmnlint: lintConfig(RULES, options.t), active: true },
    additionalModules: [
      BpmnPropertiesPanelModule,
      BpmnPropertiesProviderModule,
      CamundaPlatformPropertiesProviderModule,
      pickerProviderModule,
      camundaBehaviors,
      lintModule,
      translateModule(options.language),
    ],
    moddleExtensions: { camunda: camundaModdle },
  });
  const bus: { on(event: string, callback: (event: { definitions?: Moddled }) => void): void } =
    modeler.get('eventBus');
  // before bpmn-js draws the file: flows linked to their ends, a diagram for each process without
  bus.on('import.parse.complete', (event) => {
    linkFlows(event.definitions);
    drawProcesses(event.definitions);
  });
  return modeler;
}

/**
 * Shows another diagram of the file (one per process). The properties panel and the linter
 * follow import.done, which open() alone does not fire: without it they stay on the diagram before.
 */
export async function openDiagram(modeler: BpmnModeler, diagram: Moddled): Promise<void> {
  const { warnings } = await modeler.open(diagram);
  const bus: { fire(event: string, data: Record<string, unknown>): void } = modeler.get('eventBus');
  bus.fire('import.done', { error: null, warnings });
}

/** Texts again in the language now current: palette, properties panel, lint messages. */
export function relabel(modeler: BpmnModeler): void {
  const bus: { fire(event: string): void } = modeler.get('eventBus');
  bus.fire('i18n.changed');
  bus.fire('propertiesPanel.providersChanged');
  const linting: { update?: () => void } = modeler.get('linting');
  linting.update?.();
}

export type { BpmnModeler };
