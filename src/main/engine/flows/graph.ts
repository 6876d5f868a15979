import { badRequest, type FieldErrors } from '../shared/errors.ts';
import type { EdgeInput, FlowEdge, FlowNode, Graph, NodeInput } from './flows.types.ts';
import { NODE_ID_PATTERN, type NodeCatalog } from './node-catalog.ts';

/** Horizontal step of the canvas layout (contract 2.10). */
export const LAYOUT_STEP_X = 320;

export function edgeId(source: string, target: string, sourceHandle?: string): string {
  return sourceHandle ? `e-${source}-${sourceHandle}-${target}` : `e-${source}-${target}`;
}

/** The next free `nodeN`: one more than the highest N in use. */
export function nextNodeId(taken: Iterable<string>): string {
  let max = 0;
  for (const id of taken) {
    const match = /^node(\d+)$/.exec(id);
    if (match) max = Math.max(max, Number(match[1]));
  }
  return `node${max + 1}`;
}

function addError(errors: FieldErrors, key: string, message: string): void {
  (errors[key] ??= []).push(message);
}

/**
 * Builds a stored node from a NodeInput: the config merged over the type's defaults and validated.
 * Errors are keyed `<prefix>type`, `<prefix>config.<path>` and so on.
 */
export function buildNode(catalog: NodeCatalog, input: NodeInput, id: string, fallbackPosition: { x: number; y: number }, prefix: string, errors: FieldErrors): FlowNode | undefined {
  const def = catalog.get(input.type);
  if (!def) {
    addError(errors, `${prefix}type`, `Unknown node type "${input.type}"; known types: ${catalog.types.join(', ')}`);
    return undefined;
  }
  const parsed = catalog.parseConfig(input.type, { ...catalog.defaultConfig(input.type), ...(input.config ?? {}) }, `${prefix}config`);
  if (!parsed.ok) {
    for (const [key, messages] of Object.entries(parsed.fieldErrors)) for (const m of messages) addError(errors, key, m);
    return undefined;
  }
  return {
    id,
    type: def.type,
    nodeType: def.type,
    label: input.label ?? def.label,
    description: input.description ?? '',
    config: parsed.config,
    position: input.position ?? fallbackPosition,
  };
}

export interface EdgeCheckKeys {
  source: string;
  target: string;
  sourceHandle: string;
}

/**
 * Checks one edge against the nodes and the edges already accepted, and returns it with its id and
 * default handle. Refuses unknown endpoints, self-loops, missing pins, bad handles and duplicates.
 */
export function checkEdge(catalog: NodeCatalog, input: EdgeInput, nodes: ReadonlyMap<string, FlowNode>, existing: ReadonlyMap<string, FlowEdge>, keys: EdgeCheckKeys, errors: FieldErrors): FlowEdge | undefined {
  const before = Object.keys(errors).length;
  const source = nodes.get(input.source);
  const target = nodes.get(input.target);
  if (!source) addError(errors, keys.source, `No node "${input.source}" in this flow`);
  if (!target) addError(errors, keys.target, `No node "${input.target}" in this flow`);
  if (input.source === input.target) addError(errors, keys.target, `An edge cannot connect node "${input.source}" to itself`);
  let handle: string | undefined;
  if (source) {
    const def = catalog.require(source.type);
    if (!def.pins.output) addError(errors, keys.source, `Node "${source.id}" (${source.type}) has no output pin`);
    if (def.outputs) {
      handle = input.sourceHandle ?? def.outputs[0].id;
      if (!def.outputs.some((o) => o.id === handle)) addError(errors, keys.sourceHandle, `Node "${source.id}" has outputs ${def.outputs.map((o) => o.id).join(' and ')}, not "${handle}"`);
    } else if (input.sourceHandle !== undefined) {
      addError(errors, keys.sourceHandle, `Node "${source.id}" (${source.type}) has a single output; sourceHandle is only for If nodes`);
    }
  }
  if (target && !catalog.require(target.type).pins.input) addError(errors, keys.target, `Node "${target.id}" (${target.type}) has no input pin`);
  if (Object.keys(errors).length > before) return undefined;
  const edge: FlowEdge = { id: edgeId(input.source, input.target, handle), source: input.source, target: input.target, ...(handle ? { sourceHandle: handle } : {}) };
  if (existing.has(edge.id)) {
    addError(errors, keys.target, `The edge ${edge.id} already exists`);
    return undefined;
  }
  return edge;
}

/** A cycle as a list of node ids (first repeated at the end), or null. Flows are acyclic: see README. */
export function findCycle(nodeIds: Iterable<string>, edges: Iterable<FlowEdge>): string[] | null {
  const next = new Map<string, string[]>();
  for (const id of nodeIds) next.set(id, []);
  for (const e of edges) next.get(e.source)?.push(e.target);
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const visit = (id: string): string[] | null => {
    state.set(id, 1);
    stack.push(id);
    for (const to of next.get(id) ?? []) {
      const s = state.get(to);
      if (s === 1) return [...stack.slice(stack.indexOf(to)), to];
      if (s === undefined) {
        const found = visit(to);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(id, 2);
    return null;
  };
  for (const id of next.keys()) {
    if (!state.has(id)) {
      const found = visit(id);
      if (found) return found;
    }
  }
  return null;
}

function throwIfAny(errors: FieldErrors, what: string): void {
  const keys = Object.keys(errors);
  if (keys.length === 0) return;
  throw badRequest(`Invalid ${what}: ${keys[0]}: ${errors[keys[0]][0]}${keys.length > 1 ? ` (and ${keys.length - 1} more)` : ''}`, errors);
}

/**
 * Validates a whole graph (create, PUT) and returns it as stored. Every problem is collected, keyed by
 * the node or edge it concerns (`nodes.node3.config.prompt`, `edges.e-node1-node2.target`), and
 * nothing is returned unless all of it is valid.
 */
export function buildGraph(catalog: NodeCatalog, input: { nodes: readonly NodeInput[]; edges: readonly EdgeInput[] }): Graph {
  const errors: FieldErrors = {};
  const given = new Set(input.nodes.flatMap((n) => (n.id === undefined ? [] : [n.id])));
  const taken = new Set<string>(given);
  const nodes = new Map<string, FlowNode>();
  input.nodes.forEach((nodeInput, index) => {
    let id = nodeInput.id;
    if (id === undefined) {
      id = nextNodeId(taken);
      taken.add(id);
    }
    const key = `nodes.${NODE_ID_PATTERN.test(id) ? id : index}`;
    if (!NODE_ID_PATTERN.test(id)) return addError(errors, `${key}.id`, `Node id "${id}" must be letters, digits and underscores, starting with a letter (at most 64)`);
    if (nodes.has(id)) return addError(errors, `${key}.id`, `Duplicate node id "${id}"`);
    const node = buildNode(catalog, nodeInput, id, { x: index * LAYOUT_STEP_X, y: 0 }, `${key}.`, errors);
    // Keep a placeholder for an invalid node so its edges are still checked against an id that exists.
    nodes.set(id, node ?? { id, type: '', nodeType: '', label: '', description: '', config: {}, position: { x: 0, y: 0 } });
  });
  const invalidNodes = new Set([...nodes.values()].filter((n) => n.type === '').map((n) => n.id));
  const edges = new Map<string, FlowEdge>();
  input.edges.forEach((edgeInput, index) => {
    if (invalidNodes.has(edgeInput.source) || invalidNodes.has(edgeInput.target)) return;
    const key = `edges.${nodes.has(edgeInput.source) && nodes.has(edgeInput.target) ? edgeId(edgeInput.source, edgeInput.target, edgeInput.sourceHandle) : index}`;
    const edge = checkEdge(catalog, edgeInput, nodes, edges, { source: `${key}.source`, target: `${key}.target`, sourceHandle: `${key}.sourceHandle` }, errors);
    if (edge) edges.set(edge.id, edge);
  });
  if (Object.keys(errors).length === 0) {
    const cycle = findCycle(nodes.keys(), edges.values());
    if (cycle) {
      const closing = [...edges.values()].find((e) => e.source === cycle[cycle.length - 2] && e.target === cycle[cycle.length - 1]);
      addError(errors, `edges.${closing?.id ?? index0(cycle)}`, `Flows cannot loop: ${cycle.join(' -> ')}`);
    }
  }
  throwIfAny(errors, 'graph');
  return { nodes: [...nodes.values()], edges: [...edges.values()] };
}

function index0(cycle: string[]): string {
  return edgeId(cycle[0], cycle[1]);
}

export { throwIfAny };
