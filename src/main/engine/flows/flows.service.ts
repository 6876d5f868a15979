import type { CreditsService } from '../credits/credits.service.ts';
import type { Principal } from '../identity/identity.types.ts';
import type { AskApi, KnowledgeApi, KnowledgeWriteApi } from '../knowledge/knowledge.api.ts';
import type { LlmApi } from '../llm/llm.types.ts';
import type { Clock } from '../shared/clock.ts';
import { badRequest, fieldError, notFound, type FieldErrors } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import type { Logger } from '../shared/logger.ts';
import type { Db } from '../storage/database.ts';
import { ExecutionsRepository } from './executions.repository.ts';
import { FlowExecutor, type NodeTestResult } from './executor.ts';
import { FlowEvents } from './flow-events.ts';
import { FlowsRepository, type FlowOwner, type StoredFlow } from './flows.repository.ts';
import type { EdgeInput, Execution, FlowEdge, FlowNode, FlowSummary, FlowWithGraph, InboundMessage, Item, Json, NodeInput, Position } from './flows.types.ts';
import { buildGraph, buildNode, checkEdge, findCycle, LAYOUT_STEP_X, nextNodeId, throwIfAny } from './graph.ts';
import { MessagingService, type MessagingOptions } from './messaging.service.ts';
import { NODE_ID_PATTERN, NodeCatalog } from './node-catalog.ts';

export interface FlowsDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  credits: CreditsService;
  /** Late-bound: the model provider and knowledge services may be wired after flows, or not at all. */
  llm: () => LlmApi | undefined;
  ask: () => AskApi | undefined;
  knowledge: () => (KnowledgeApi & Partial<KnowledgeWriteApi>) | undefined;
  messaging?: MessagingOptions;
}

export interface NewFlow {
  name: string;
  active?: boolean;
  nodes?: NodeInput[];
  edges?: EdgeInput[];
}

export interface NewNode extends NodeInput {
  connectFrom?: string;
  connectFromHandle?: string;
  connectTo?: string;
}

export interface NodeChanges {
  label?: string;
  description?: string;
  config?: Json;
  configPatch?: Json;
  position?: Position;
}

export interface EdgeFilter {
  source?: string;
  target?: string;
  sourceHandle?: string;
}

export interface FiredFlow {
  flowId: string;
  executionId: string;
  poll: string;
}

const summary = (flow: StoredFlow): FlowSummary => ({
  id: flow.id,
  name: flow.name,
  active: flow.active,
  nodeCount: flow.nodeCount,
  edgeCount: flow.edgeCount,
  createdAt: flow.createdAt,
  updatedAt: flow.updatedAt,
});

const ownerOf = (principal: Principal): FlowOwner => ({ workspaceId: principal.workspaceId, userId: principal.userId });

export function executionPath(flowId: string, executionId: string): string {
  return `/api/ai/simple-flow/flows/${flowId}/executions/${executionId}`;
}

/** Flows and their graphs, owned per user; every edit is validated whole and published on the change feed. */
export class FlowsService {
  readonly catalog = new NodeCatalog();
  readonly events = new FlowEvents();
  readonly messaging: MessagingService;
  readonly executor: FlowExecutor;
  private readonly repo: FlowsRepository;
  private readonly executions: ExecutionsRepository;
  private readonly db: Db;
  private readonly clock: Clock;

  constructor(deps: FlowsDeps) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.repo = new FlowsRepository(deps.db);
    this.executions = new ExecutionsRepository(deps.db);
    this.messaging = new MessagingService(deps.db, deps.clock, deps.logger, deps.messaging);
    this.executor = new FlowExecutor({
      db: deps.db,
      catalog: this.catalog,
      flows: this.repo,
      executions: this.executions,
      events: this.events,
      clock: deps.clock,
      logger: deps.logger,
      services: {
        credits: deps.credits,
        llm: deps.llm,
        ask: deps.ask,
        knowledge: deps.knowledge,
        sendMessage: (context, message) => this.messaging.send(context, message),
      },
    });
    this.executor.recoverInterrupted();
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** The flow, or 404 when it is missing, another user's, another workspace's, or not the flow of a legacy per-flow key. */
  requireFlow(principal: Principal, flowId: string): StoredFlow {
    const flow = this.repo.getFlow(ownerOf(principal), flowId);
    if (!flow || (principal.flowId && principal.flowId !== flowId)) throw notFound(`Flow ${flowId}`);
    return flow;
  }

  private requireNode(flowId: string, nodeId: string, withLastRun = false): FlowNode {
    const node = this.repo.node(flowId, nodeId, withLastRun);
    if (!node) throw notFound(`Node ${nodeId}`);
    return node;
  }

  private withGraph(flowId: string, withLastRun = false): FlowWithGraph {
    const flow = this.repo.getFlowById(flowId)!;
    return { ...summary(flow), ...this.repo.graph(flowId, withLastRun) };
  }

  private changed(principal: Principal, flowId: string, event: { type: string; [key: string]: unknown }): void {
    this.repo.touch(flowId, this.now());
    this.events.publish(ownerOf(principal), { ...event, flowId });
  }

  list(principal: Principal): FlowSummary[] {
    const flows = this.repo.listFlows(ownerOf(principal));
    return flows.filter((f) => !principal.flowId || f.id === principal.flowId).map(summary);
  }

  get(principal: Principal, flowId: string): FlowSummary {
    return summary(this.requireFlow(principal, flowId));
  }

  create(principal: Principal, input: NewFlow): FlowWithGraph {
    const graph = buildGraph(this.catalog, { nodes: input.nodes ?? [], edges: input.edges ?? [] });
    const id = newId();
    const now = this.now();
    this.db.transaction(() => {
      this.repo.insertFlow({ id, name: input.name, active: input.active ?? false, createdAt: now, updatedAt: now }, ownerOf(principal));
      this.repo.replaceGraph(id, graph);
    })();
    const created = this.withGraph(id);
    this.events.publish(ownerOf(principal), { type: 'flow.created', flowId: id, flow: summary(this.repo.getFlowById(id)!) });
    return created;
  }

  update(principal: Principal, flowId: string, changes: { name?: string; active?: boolean }): FlowSummary {
    this.requireFlow(principal, flowId);
    this.repo.updateFlow(flowId, changes, this.now());
    const flow = summary(this.requireFlow(principal, flowId));
    this.events.publish(ownerOf(principal), { type: 'flow.updated', flowId, flow });
    return flow;
  }

  graph(principal: Principal, flowId: string, includeOutput: boolean): FlowWithGraph {
    this.requireFlow(principal, flowId);
    return this.withGraph(flowId, includeOutput);
  }

  /** PUT graph: validates everything first; on any error nothing is saved. Replacing drops every node's run state. */
  replaceGraph(principal: Principal, flowId: string, input: { nodes: NodeInput[]; edges: EdgeInput[] }): FlowWithGraph {
    this.requireFlow(principal, flowId);
    const graph = buildGraph(this.catalog, input);
    this.db.transaction(() => {
      this.repo.replaceGraph(flowId, graph);
      this.repo.touch(flowId, this.now());
    })();
    const result = this.withGraph(flowId);
    this.events.publish(ownerOf(principal), { type: 'graph.replaced', flowId, nodes: result.nodes, edges: result.edges });
    return result;
  }

  listNodes(principal: Principal, flowId: string, filter: { q?: string; type?: string; includeOutput?: boolean }): { count: number; nodes: FlowNode[] } {
    this.requireFlow(principal, flowId);
    const needle = filter.q?.toLowerCase();
    const nodes = this.repo.nodes(flowId, filter.includeOutput).filter((n) => {
      if (filter.type && n.type !== filter.type) return false;
      if (!needle) return true;
      return [n.id, n.label, n.description, n.type, JSON.stringify(n.config)].some((text) => text.toLowerCase().includes(needle));
    });
    return { count: nodes.length, nodes };
  }

  getNode(principal: Principal, flowId: string, nodeId: string, includeOutput: boolean): FlowNode & { incoming: FlowEdge[]; outgoing: FlowEdge[] } {
    this.requireFlow(principal, flowId);
    const node = this.requireNode(flowId, nodeId, includeOutput);
    const edges = this.repo.edges(flowId);
    return { ...node, incoming: edges.filter((e) => e.target === nodeId), outgoing: edges.filter((e) => e.source === nodeId) };
  }

  createNode(principal: Principal, flowId: string, input: NewNode): FlowNode {
    this.requireFlow(principal, flowId);
    const { nodes, edges } = this.repo.graph(flowId);
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const errors: FieldErrors = {};
    const id = input.id ?? nextNodeId(byId.keys());
    if (!NODE_ID_PATTERN.test(id)) throw fieldError('id', `Node id "${id}" must be letters, digits and underscores, starting with a letter (at most 64)`);
    if (byId.has(id)) throw fieldError('id', `Node id "${id}" is taken in this flow`);
    if (input.connectFromHandle !== undefined && input.connectFrom === undefined) throw fieldError('connectFromHandle', 'connectFromHandle needs connectFrom');
    const from = input.connectFrom !== undefined ? byId.get(input.connectFrom) : undefined;
    const position = from ? { x: from.position.x + LAYOUT_STEP_X, y: from.position.y } : { x: nodes.length ? Math.max(...nodes.map((n) => n.position.x)) + LAYOUT_STEP_X : 0, y: 0 };
    const node = buildNode(this.catalog, input, id, position, '', errors);
    throwIfAny(errors, 'node');
    byId.set(id, node!);
    const existing = new Map(edges.map((e) => [e.id, e]));
    const added: FlowEdge[] = [];
    if (input.connectFrom !== undefined) {
      const edge = checkEdge(this.catalog, { source: input.connectFrom, target: id, sourceHandle: input.connectFromHandle }, byId, existing, { source: 'connectFrom', target: 'connectFrom', sourceHandle: 'connectFromHandle' }, errors);
      if (edge) {
        added.push(edge);
        existing.set(edge.id, edge);
      }
    }
    if (input.connectTo !== undefined) {
      const edge = checkEdge(this.catalog, { source: id, target: input.connectTo }, byId, existing, { source: 'connectTo', target: 'connectTo', sourceHandle: 'connectTo' }, errors);
      if (edge) added.push(edge);
    }
    if (added.length && findCycle(byId.keys(), [...edges, ...added])) errors.connectTo = ['Connecting this node would make the flow loop'];
    throwIfAny(errors, 'node');
    this.db.transaction(() => {
      this.repo.insertNode(flowId, node!);
      for (const edge of added) this.repo.insertEdge(flowId, edge);
    })();
    this.changed(principal, flowId, { type: 'node.created', node, edges: added });
    return node!;
  }

  updateNode(principal: Principal, flowId: string, nodeId: string, changes: NodeChanges): FlowNode {
    this.requireFlow(principal, flowId);
    const node = this.requireNode(flowId, nodeId);
    if (changes.config !== undefined && changes.configPatch !== undefined) throw fieldError('configPatch', 'Send config (replaces) or configPatch (merges), not both');
    let config = node.config;
    if (changes.config !== undefined || changes.configPatch !== undefined) {
      const merged = changes.config !== undefined ? { ...this.catalog.defaultConfig(node.type), ...changes.config } : { ...node.config, ...changes.configPatch };
      const parsed = this.catalog.parseConfig(node.type, merged, changes.config !== undefined ? 'config' : 'configPatch');
      if (!parsed.ok) throwIfAny(parsed.fieldErrors, 'config');
      else config = parsed.config;
    }
    const updated: FlowNode = {
      ...node,
      label: changes.label ?? node.label,
      description: changes.description ?? node.description,
      config,
      position: changes.position ?? node.position,
    };
    this.repo.updateNode(flowId, updated);
    this.changed(principal, flowId, { type: 'node.updated', node: updated });
    return updated;
  }

  deleteNode(principal: Principal, flowId: string, nodeId: string): { deleted: string; removedEdges: string[] } {
    this.requireFlow(principal, flowId);
    this.requireNode(flowId, nodeId);
    const removedEdges = this.repo
      .edges(flowId)
      .filter((e) => e.source === nodeId || e.target === nodeId)
      .map((e) => e.id);
    this.db.transaction(() => {
      this.repo.deleteEdges(flowId, removedEdges);
      this.repo.deleteNode(flowId, nodeId);
    })();
    this.changed(principal, flowId, { type: 'node.deleted', nodeId, removedEdges });
    return { deleted: nodeId, removedEdges };
  }

  listEdges(principal: Principal, flowId: string): { count: number; edges: FlowEdge[] } {
    this.requireFlow(principal, flowId);
    const edges = this.repo.edges(flowId);
    return { count: edges.length, edges };
  }

  createEdge(principal: Principal, flowId: string, input: EdgeInput): FlowEdge {
    this.requireFlow(principal, flowId);
    const { nodes, edges } = this.repo.graph(flowId);
    const errors: FieldErrors = {};
    const edge = checkEdge(this.catalog, input, new Map(nodes.map((n) => [n.id, n])), new Map(edges.map((e) => [e.id, e])), { source: 'source', target: 'target', sourceHandle: 'sourceHandle' }, errors);
    throwIfAny(errors, 'edge');
    const cycle = findCycle(
      nodes.map((n) => n.id),
      [...edges, edge!],
    );
    if (cycle) throw fieldError('target', `Flows cannot loop: ${cycle.join(' -> ')}`);
    this.repo.insertEdge(flowId, edge!);
    this.changed(principal, flowId, { type: 'edge.created', edge });
    return edge!;
  }

  deleteEdge(principal: Principal, flowId: string, edgeId: string): { deleted: string } {
    this.requireFlow(principal, flowId);
    if (!this.repo.edges(flowId).some((e) => e.id === edgeId)) throw notFound(`Edge ${edgeId}`);
    this.repo.deleteEdges(flowId, [edgeId]);
    this.changed(principal, flowId, { type: 'edge.deleted', edgeIds: [edgeId] });
    return { deleted: edgeId };
  }

  /**
   * DELETE /edges?source=&target=&sourceHandle=: removes every edge matching all the given endpoints.
   * At least source or target is required (400); no match answers 404, like delete by id.
   */
  deleteEdgesByEndpoints(principal: Principal, flowId: string, filter: EdgeFilter): { deleted: string[]; count: number } {
    this.requireFlow(principal, flowId);
    if (filter.source === undefined && filter.target === undefined) {
      throw badRequest('Give source, target or both to delete edges by their endpoints', { source: ['source or target is required'], target: ['source or target is required'] });
    }
    const matching = this.repo
      .edges(flowId)
      .filter((e) => (filter.source === undefined || e.source === filter.source) && (filter.target === undefined || e.target === filter.target))
      .filter((e) => filter.sourceHandle === undefined || e.sourceHandle === filter.sourceHandle)
      .map((e) => e.id);
    if (matching.length === 0) throw notFound(`Edge from ${filter.source ?? 'any node'} to ${filter.target ?? 'any node'}${filter.sourceHandle ? ` on ${filter.sourceHandle}` : ''}`);
    this.repo.deleteEdges(flowId, matching);
    this.changed(principal, flowId, { type: 'edge.deleted', edgeIds: matching });
    return { deleted: matching, count: matching.length };
  }

  /** POST execute: 402 first when the flow may spend credits at a zero balance; then 202 and the run goes on in the background. */
  execute(principal: Principal, flowId: string): { executionId: string; poll: string; done: Promise<void> } {
    const flow = this.requireFlow(principal, flowId);
    const graph = this.repo.graph(flowId);
    this.executor.assertCreditsFor(principal.workspaceId, graph.nodes);
    const { executionId, done } = this.executor.start({ principal, owner: ownerOf(principal), flowId, graph, graphVersion: flow.graphVersion, trigger: 'manual' });
    return { executionId, poll: executionPath(flowId, executionId), done };
  }

  listExecutions(principal: Principal, flowId: string): Execution[] {
    this.requireFlow(principal, flowId);
    return this.executions.list(flowId, 20);
  }

  getExecution(principal: Principal, flowId: string, executionId: string): Execution {
    this.requireFlow(principal, flowId);
    const execution = this.executions.get(flowId, executionId);
    if (!execution) throw notFound(`Execution ${executionId}`);
    return execution;
  }

  async testNode(principal: Principal, flowId: string, nodeId: string, input: { inputItems?: Item[]; nodeOutputs?: Record<string, Item[]> }): Promise<NodeTestResult> {
    this.requireFlow(principal, flowId);
    const node = this.requireNode(flowId, nodeId);
    this.executor.assertCreditsFor(principal.workspaceId, [node]);
    return this.executor.testNode(principal, ownerOf(principal), flowId, node, input.inputItems, input.nodeOutputs ?? {});
  }

  /**
   * An incoming message: starts a run of every active flow of the caller holding a messagingTrigger
   * whose channel matches. Only those trigger nodes are seeded, with the message as their item.
   * Flows that may spend credits are skipped at a zero balance.
   */
  receiveMessage(principal: Principal, message: InboundMessage): { fired: FiredFlow[]; skipped: Array<{ flowId: string; reason: string }>; done: Promise<void> } {
    const owner = ownerOf(principal);
    const fired: FiredFlow[] = [];
    const skipped: Array<{ flowId: string; reason: string }> = [];
    const runs: Promise<void>[] = [];
    const receivedAt = this.now();
    for (const flow of this.repo.listActiveWithNodeType(owner, 'messagingTrigger')) {
      if (principal.flowId && principal.flowId !== flow.id) continue;
      const graph = this.repo.graph(flow.id);
      const triggers = graph.nodes.filter((n) => n.type === 'messagingTrigger' && (!n.config.channel || n.config.channel === message.channel));
      if (triggers.length === 0) continue;
      try {
        this.executor.assertCreditsFor(principal.workspaceId, graph.nodes);
      } catch {
        skipped.push({ flowId: flow.id, reason: 'The workspace has no credits left and this flow uses a model.' });
        continue;
      }
      const item: Item = { json: { ...(message.meta ?? {}), channel: message.channel, from: message.from, text: message.text, receivedAt } };
      const seeds = new Map(triggers.map((t) => [t.id, [structuredClone(item)]]));
      const { executionId, done } = this.executor.start({ principal, owner, flowId: flow.id, graph, graphVersion: flow.graphVersion, trigger: 'messaging', seeds });
      fired.push({ flowId: flow.id, executionId, poll: executionPath(flow.id, executionId) });
      runs.push(done);
    }
    return { fired, skipped, done: Promise.allSettled(runs).then(() => undefined) };
  }

  async dispose(): Promise<void> {
    this.events.closeAll();
    await this.executor.dispose();
  }
}
