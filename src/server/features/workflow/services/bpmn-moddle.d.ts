/** The part of bpmn-moddle's API the parser uses (the package ships no types for its entry). */
declare module 'bpmn-moddle' {
  export interface ModdleElement {
    $type: string;
    id?: string;
    [property: string]: unknown;
  }
  export interface ParseResult {
    rootElement: ModdleElement;
    warnings: { message: string; element?: ModdleElement; property?: string; value?: string }[];
    elementsById: Record<string, ModdleElement>;
  }
  export interface Moddle {
    fromXML(xml: string): Promise<ParseResult>;
  }
  export function BpmnModdle(packages?: Record<string, unknown>): Moddle;
}
