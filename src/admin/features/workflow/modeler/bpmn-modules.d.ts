// The bpmn-io add-ons ship without type declarations: what this folder uses of them.
declare module 'bpmn-js-properties-panel' {
  import type { ModuleDeclaration } from 'didi';
  export const BpmnPropertiesPanelModule: ModuleDeclaration;
  export const BpmnPropertiesProviderModule: ModuleDeclaration;
  export const CamundaPlatformPropertiesProviderModule: ModuleDeclaration;
}
declare module 'camunda-bpmn-js-behaviors/lib/camunda-platform' {
  import type { ModuleDeclaration } from 'didi';
  const module: ModuleDeclaration;
  export default module;
}
declare module 'bpmn-js-bpmnlint' {
  import type { ModuleDeclaration } from 'didi';
  const module: ModuleDeclaration;
  export default module;
}
declare module 'bpmnlint/rules/*' {
  import type { RuleFactory } from './lint.js';
  const factory: RuleFactory;
  export default factory;
}
