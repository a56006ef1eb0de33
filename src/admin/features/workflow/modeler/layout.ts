/**
 * Files from Activiti and Flowable often carry no diagram (or only part of one): bpmn-js then
 * draws nothing. This lays each such process of a file out left to right in layers, on a diagram
 * of its own, so it can be designed; it runs on the file as bpmn-js has read it (modeler.ts).
 */

export interface LayoutNode {
  id: string;
  type: string;
  /** A boundary event's host. */
  attachedTo?: string;
}

export interface LayoutFlow {
  id: string;
  source: string;
  target: string;
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Layout {
  shapes: Map<string, Box>;
  edges: Map<string, { x: number; y: number }[]>;
}

const LAYER_GAP = 180;
const ROW_GAP = 130;
const LEFT = 100;
const TOP = 100;

export function sizeOf(type: string): { width: number; height: number } {
  if (/Event$/.test(type)) return { width: 36, height: 36 };
  if (/Gateway$/.test(type)) return { width: 50, height: 50 };
  return { width: 100, height: 80 };
}

/** Layers by the longest path from the starts; back edges (loops) are left out of the count. */
function layersOf(nodes: readonly LayoutNode[], flows: readonly LayoutFlow[]): Map<string, number> {
  const outgoing = new Map<string, string[]>();
  for (const flow of flows) outgoing.set(flow.source, [...(outgoing.get(flow.source) ?? []), flow.target]);
  const incoming = new Set(flows.map((flow) => flow.target));
  const roots = nodes.filter((node) => !incoming.has(node.id)).map((node) => node.id);
  const layer = new Map<string, number>();
  const onPath = new Set<string>();
  const visit = (id: string, depth: number): void => {
    if (onPath.has(id) || (layer.get(id) ?? -1) >= depth) return;
    layer.set(id, depth);
    onPath.add(id);
    for (const next of outgoing.get(id) ?? []) visit(next, depth + 1);
    onPath.delete(id);
  };
  for (const root of roots.length > 0 ? roots : nodes.slice(0, 1).map((node) => node.id)) visit(root, 0);
  // what no start reaches (a loop on its own) goes after the rest
  let last = Math.max(0, ...layer.values());
  for (const node of nodes) if (!layer.has(node.id)) visit(node.id, ++last);
  return layer;
}

export function layOut(nodes: readonly LayoutNode[], flows: readonly LayoutFlow[]): Layout {
  const placed = nodes.filter((node) => !node.attachedTo);
  const known = new Set(placed.map((node) => node.id));
  const layers = layersOf(
    placed,
    flows.filter((flow) => known.has(flow.source) && known.has(flow.target)),
  );
  const rows = new Map<number, number>();
  const shapes = new Map<string, Box>();
  for (const node of placed) {
    const layer = layers.get(node.id) ?? 0;
    const row = rows.get(layer) ?? 0;
    rows.set(layer, row + 1);
    const size = sizeOf(node.type);
    // centred on the row's middle line, tasks and events alike
    shapes.set(node.id, {
      x: LEFT + layer * LAYER_GAP + (100 - size.width) / 2,
      y: TOP + row * ROW_GAP + (80 - size.height) / 2,
      ...size,
    });
  }
  for (const node of nodes) {
    const host = node.attachedTo ? shapes.get(node.attachedTo) : undefined;
    if (!host) continue;
    const size = sizeOf(node.type);
    shapes.set(node.id, { x: host.x + host.width - 24, y: host.y + host.height - 18, ...size });
  }
  const edges = new Map<string, { x: number; y: number }[]>();
  for (const flow of flows) {
    const from = shapes.get(flow.source);
    const to = shapes.get(flow.target);
    if (!from || !to) continue;
    const start = { x: from.x + from.width, y: from.y + from.height / 2 };
    const end = { x: to.x, y: to.y + to.height / 2 };
    if (to.x <= from.x) {
      // a loop back: under both shapes
      const below = Math.max(from.y + from.height, to.y + to.height) + 30;
      const fromBottom = { x: from.x + from.width / 2, y: from.y + from.height };
      const toBottom = { x: to.x + to.width / 2, y: to.y + to.height };
      edges.set(flow.id, [fromBottom, { x: fromBottom.x, y: below }, { x: toBottom.x, y: below }, toBottom]);
    } else if (start.y === end.y) edges.set(flow.id, [start, end]);
    else {
      const middle = Math.round((start.x + end.x) / 2);
      edges.set(flow.id, [start, { x: middle, y: start.y }, { x: middle, y: end.y }, end]);
    }
  }
  return { shapes, edges };
}

/**
 * The part of a bpmn-moddle element (a file as bpmn-js reads it, before it draws it) this module
 * reads and writes.
 */
export interface Moddled {
  $type: string;
  $parent?: Moddled | undefined;
  /** The moddle that read the file: it makes the elements of the new diagrams. */
  $model?: ModdleFactory;
  $instanceOf(type: string): boolean;
  get(name: string): unknown;
  id?: string;
  name?: string;
  rootElements?: Moddled[];
  flowElements?: Moddled[];
  participants?: Moddled[];
  processRef?: Moddled;
  attachedToRef?: Moddled;
  sourceRef?: Moddled;
  targetRef?: Moddled;
  plane?: Moddled;
  bpmnElement?: Moddled;
  planeElement?: Moddled[];
}

interface ModdleFactory {
  create(type: string, properties: Record<string, unknown>): Moddled;
  /** bpmn-js's modeler keeps the ids in use here, so that what it creates later takes others. */
  ids?: { claim(id: string, element: Moddled): void };
}

const listOf = (element: Moddled | undefined, name: string): Moddled[] => {
  const value = element?.get(name);
  return Array.isArray(value) ? (value as Moddled[]) : [];
};

const isA = (element: Moddled | undefined, type: string): boolean => element?.$instanceOf(type) === true;

/** The processes a diagram draws: its plane's, or the pools' of its collaboration. */
function processesDrawnBy(diagram: Moddled): Moddled[] {
  const root = diagram.plane?.bpmnElement;
  if (!root) return [];
  if (isA(root, 'bpmn:Process')) return [root];
  if (!isA(root, 'bpmn:Collaboration')) return [];
  return (root.participants ?? []).flatMap((pool) => (pool.processRef ? [pool.processRef] : []));
}

const nodesOf = (process: Moddled): Moddled[] =>
  (process.flowElements ?? []).filter((element) => isA(element, 'bpmn:FlowNode'));

/** Every flow node of the process has a shape on the diagram's plane. */
function isDrawnWhole(process: Moddled, diagram: Moddled): boolean {
  const drawn = new Set((diagram.plane?.planeElement ?? []).map((di) => di.bpmnElement));
  return nodesOf(process).every((node) => drawn.has(node));
}

/** A diagram of its own for the process, laid out by `layOut`, as bpmn-js would have read it. */
function diagramFor(process: Moddled, moddle: ModdleFactory): Moddled {
  const create = (type: string, properties: Record<string, unknown>, children: Moddled[] = []): Moddled => {
    const element = moddle.create(type, properties);
    // bpmn-js edits the diagram through $parent (a deleted shape leaves its plane by it)
    for (const child of children) child.$parent = element;
    if (typeof properties.id === 'string') moddle.ids?.claim(properties.id, element);
    return element;
  };
  const nodes = nodesOf(process);
  const flows = (process.flowElements ?? []).filter(
    (element) => isA(element, 'bpmn:SequenceFlow') && element.sourceRef && element.targetRef,
  );
  const layout = layOut(
    nodes.map((node) => ({
      id: node.id ?? '',
      type: node.$type.replace(/^bpmn:/, ''),
      ...(node.attachedToRef?.id ? { attachedTo: node.attachedToRef.id } : {}),
    })),
    flows.map((flow) => ({
      id: flow.id ?? '',
      source: flow.sourceRef?.id ?? '',
      target: flow.targetRef?.id ?? '',
    })),
  );
  const shapes = nodes.flatMap((node) => {
    const box = layout.shapes.get(node.id ?? '');
    if (!box) return [];
    const bounds = moddle.create('dc:Bounds', { ...box });
    return [create('bpmndi:BPMNShape', { id: `${node.id}_di`, bpmnElement: node, bounds }, [bounds])];
  });
  const edges = flows.flatMap((flow) => {
    const points = (layout.edges.get(flow.id ?? '') ?? []).map((point) =>
      moddle.create('dc:Point', { ...point }),
    );
    if (points.length === 0) return [];
    return [create('bpmndi:BPMNEdge', { id: `${flow.id}_di`, bpmnElement: flow, waypoint: points }, points)];
  });
  const drawing = [...shapes, ...edges];
  const plane = create(
    'bpmndi:BPMNPlane',
    { id: `BPMNPlane_${process.id}`, bpmnElement: process, planeElement: drawing },
    drawing,
  );
  return create('bpmndi:BPMNDiagram', { id: `BPMNDiagram_${process.id}`, plane }, [plane]);
}

/**
 * Gives each process of the file that has no whole diagram one of its own (a BPMNDiagram whose
 * plane is the process, as bpmn-js reads a file of several processes), so bpmn-js can draw it; a
 * diagram missing a shape of a process it draws is replaced. What is drawn whole stays as it is.
 */
export function drawProcesses(definitions: Moddled | undefined): void {
  const moddle = definitions?.$model;
  if (!definitions || !moddle) return;
  const diagrams = listOf(definitions, 'diagrams');
  const kept = diagrams.filter((diagram) =>
    processesDrawnBy(diagram).every((process) => isDrawnWhole(process, diagram)),
  );
  const drawn = new Set(kept.flatMap(processesDrawnBy));
  const added = (definitions.rootElements ?? [])
    .filter((element) => isA(element, 'bpmn:Process') && !drawn.has(element))
    .map((process) => diagramFor(process, moddle));
  if (added.length === 0 && kept.length === diagrams.length) return;
  for (const diagram of added) diagram.$parent = definitions;
  diagrams.splice(0, diagrams.length, ...kept, ...added);
}

/**
 * The diagrams a designer switches between: one per process, or per collaboration (a file of
 * several processes); a collapsed sub-process's own diagram is reached by drilling down instead.
 */
export function processDiagrams(definitions: Moddled | undefined): { diagram: Moddled; label: string }[] {
  return listOf(definitions, 'diagrams').flatMap((diagram) => {
    const root = diagram.plane?.bpmnElement;
    if (!root || !(isA(root, 'bpmn:Process') || isA(root, 'bpmn:Collaboration'))) return [];
    return [{ diagram, label: root.name || root.id || diagram.id || '' }];
  });
}

/**
 * Files from other tools often leave out <incoming>/<outgoing> (BPMN makes them optional): the
 * flows' ends get them, else the linter calls every task disconnected.
 */
export function linkFlows(container: Moddled | undefined): void {
  for (const element of [...(container?.rootElements ?? []), ...(container?.flowElements ?? [])]) {
    if (element.$type === 'bpmn:SequenceFlow') {
      const outgoing = listOf(element.sourceRef, 'outgoing');
      if (element.sourceRef && !outgoing.includes(element)) outgoing.push(element);
      const incoming = listOf(element.targetRef, 'incoming');
      if (element.targetRef && !incoming.includes(element)) incoming.push(element);
    } else if (element.flowElements) linkFlows(element);
  }
}
