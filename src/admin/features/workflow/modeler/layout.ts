/**
 * Files from Activiti and Flowable often carry no diagram (or only part of one): bpmn-js then
 * draws nothing. This lays such a process out left to right in layers, so it can be designed.
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

const BPMN = 'http://www.omg.org/spec/BPMN/20100524/MODEL';
const BPMNDI = 'http://www.omg.org/spec/BPMN/20100524/DI';
const DC = 'http://www.omg.org/spec/DD/20100524/DC';
const DI = 'http://www.omg.org/spec/DD/20100524/DI';

const ARTIFACTS = new Set([
  'sequenceFlow',
  'textAnnotation',
  'association',
  'dataObject',
  'extensionElements',
  'documentation',
  'laneSet',
  'incoming',
  'outgoing',
]);

/**
 * The file with a diagram for its executable process when part of one is missing (bpmn-js draws
 * only what has one); a complete file comes back unchanged.
 */
export function withDiagram(xml: string): string {
  const doc = new DOMParser().parseFromString(xml, 'application/xml');
  if (doc.getElementsByTagName('parsererror').length > 0) return xml;
  const process = Array.from(doc.getElementsByTagNameNS(BPMN, 'process')).find(
    (element) => element.getAttribute('isExecutable') !== 'false',
  );
  const processId = process?.getAttribute('id');
  if (!process || !processId) return xml;
  const children = Array.from(process.children).filter((child) => child.namespaceURI === BPMN);
  const nodes: LayoutNode[] = children
    .filter((child) => !ARTIFACTS.has(child.localName) && child.getAttribute('id'))
    .map((child) => ({
      id: child.getAttribute('id') ?? '',
      type: child.localName.charAt(0).toUpperCase() + child.localName.slice(1),
      ...(child.getAttribute('attachedToRef')
        ? { attachedTo: child.getAttribute('attachedToRef') ?? '' }
        : {}),
    }));
  const flows: LayoutFlow[] = children
    .filter((child) => child.localName === 'sequenceFlow')
    .map((child) => ({
      id: child.getAttribute('id') ?? '',
      source: child.getAttribute('sourceRef') ?? '',
      target: child.getAttribute('targetRef') ?? '',
    }));
  const drawn = new Set(
    Array.from(doc.getElementsByTagNameNS(BPMNDI, 'BPMNShape')).map((shape) =>
      shape.getAttribute('bpmnElement'),
    ),
  );
  if (nodes.every((node) => drawn.has(node.id))) return xml;
  const layout = layOut(nodes, flows);
  for (const diagram of Array.from(doc.getElementsByTagNameNS(BPMNDI, 'BPMNDiagram'))) diagram.remove();
  const root = doc.documentElement;
  const diagram = doc.createElementNS(BPMNDI, 'bpmndi:BPMNDiagram');
  diagram.setAttribute('id', 'BPMNDiagram_1');
  const plane = doc.createElementNS(BPMNDI, 'bpmndi:BPMNPlane');
  plane.setAttribute('id', 'BPMNPlane_1');
  plane.setAttribute('bpmnElement', processId);
  for (const [id, box] of layout.shapes) {
    const shape = doc.createElementNS(BPMNDI, 'bpmndi:BPMNShape');
    shape.setAttribute('id', `${id}_di`);
    shape.setAttribute('bpmnElement', id);
    const bounds = doc.createElementNS(DC, 'dc:Bounds');
    for (const key of ['x', 'y', 'width', 'height'] as const) bounds.setAttribute(key, String(box[key]));
    shape.append(bounds);
    plane.append(shape);
  }
  for (const [id, points] of layout.edges) {
    const edge = doc.createElementNS(BPMNDI, 'bpmndi:BPMNEdge');
    edge.setAttribute('id', `${id}_di`);
    edge.setAttribute('bpmnElement', id);
    for (const point of points) {
      const waypoint = doc.createElementNS(DI, 'di:waypoint');
      waypoint.setAttribute('x', String(point.x));
      waypoint.setAttribute('y', String(point.y));
      edge.append(waypoint);
    }
    plane.append(edge);
  }
  diagram.append(plane);
  root.append(diagram);
  return new XMLSerializer().serializeToString(doc);
}

export interface Moddled {
  $type: string;
  get(name: string): unknown;
  rootElements?: Moddled[];
  flowElements?: Moddled[];
  sourceRef?: Moddled;
  targetRef?: Moddled;
}

const listOf = (element: Moddled | undefined, name: string): Moddled[] => {
  const value = element?.get(name);
  return Array.isArray(value) ? (value as Moddled[]) : [];
};

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
