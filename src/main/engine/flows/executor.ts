import type { Principal } from '../identity/identity.types.ts';
import type { Clock } from '../shared/clock.ts';
import { ApiError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import type { Logger } from '../shared/logger.ts';
import type { Db } from '../storage/database.ts';
import type { ExecutionsRepository, RunnerIdentity } from './executions.repository.ts';
import type { FlowEvents } from './flow-events.ts';
import type { FlowOwner, FlowsRepository } from './flows.repository.ts';
import { FLOW_LIMITS, type Execution, type FlowEdge, type FlowNode, type Graph, type Item, type LastRun, type LogEntry } from './flows.types.ts';
import type { NodeCatalog } from './node-catalog.ts';
import { NodeError, type NodeResult, type NodeServices } from './nodes/node.types.ts';

/** How often a long run writes its partial log, so pollers see progress. */
const PROGRESS_EVERY_MS = 250;
const DISPOSE_WAIT_MS = 2000;

/** Engines alive in this process; a running execution whose engine is not here (and whose process is gone) was cut off. */
const liveInstances = new Set<string>();

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface StartRun {
  principal: Principal;
  owner: FlowOwner;
  flowId: string;
  graph: Graph;
  /** The flow's graph version when the run started; results are not written onto a graph replaced since. */
  graphVersion: number;
  trigger: Execution['trigger'];
  /** Items for chosen start nodes (an incoming message); without it every start node emits its sample. */
  seeds?: ReadonlyMap<string, Item[]>;
}

export interface NodeTestResult {
  status: 'success' | 'error';
  startedAt: string;
  finishedAt: string;
  output: Item[];
  outputs?: Item[][];
  error?: string;
}

interface PlannedNode {
  node: FlowNode;
  incoming: FlowEdge[];
  isStart: boolean;
}

/** The graph in levels: a node's level is one more than its deepest source, so a level only needs earlier levels. */
function plan(graph: Graph, catalog: NodeCatalog): PlannedNode[][] {
  const incoming = new Map<string, FlowEdge[]>();
  for (const node of graph.nodes) incoming.set(node.id, []);
  for (const edge of graph.edges) incoming.get(edge.target)?.push(edge);
  const level = new Map<string, number>();
  const levelOf = (id: string, seen: Set<string>): number => {
    const known = level.get(id);
    if (known !== undefined) return known;
    if (seen.has(id)) throw new Error(`Cycle through ${id}`); // refused at edit time; kept as a guard
    seen.add(id);
    let value = 0;
    for (const edge of incoming.get(id) ?? []) value = Math.max(value, levelOf(edge.source, seen) + 1);
    level.set(id, value);
    return value;
  };
  const levels: PlannedNode[][] = [];
  for (const node of graph.nodes) {
    const l = levelOf(node.id, new Set());
    (levels[l] ??= []).push({ node, incoming: incoming.get(node.id) ?? [], isStart: catalog.get(node.type)?.isStart === true });
  }
  return levels.filter(Boolean);
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Runs flows. An execution is recorded as `running`, then runs in the background level by level:
 * the start nodes are seeded, items flow along edges, a node runs once every node feeding it has
 * finished (nodes of one level run concurrently), a node that receives no items does not run, and
 * the first node error stops the run.
 */
export class FlowExecutor {
  readonly runner: RunnerIdentity = { pid: process.pid, instance: newId() };
  private readonly inFlight = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private readonly db: Db;
  private readonly catalog: NodeCatalog;
  private readonly flows: FlowsRepository;
  private readonly executions: ExecutionsRepository;
  private readonly services: NodeServices;
  private readonly events: FlowEvents;
  private readonly clock: Clock;
  private readonly logger: Logger;

  constructor(deps: { db: Db; catalog: NodeCatalog; flows: FlowsRepository; executions: ExecutionsRepository; services: NodeServices; events: FlowEvents; clock: Clock; logger: Logger }) {
    this.db = deps.db;
    this.catalog = deps.catalog;
    this.flows = deps.flows;
    this.executions = deps.executions;
    this.services = deps.services;
    this.events = deps.events;
    this.clock = deps.clock;
    this.logger = deps.logger;
    liveInstances.add(this.runner.instance);
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** Marks as error every run left `running` by an engine that no longer exists (a crash or a kill). */
  recoverInterrupted(): number {
    let count = 0;
    for (const { id, runner } of this.executions.running()) {
      const gone = runner.pid === process.pid ? !liveInstances.has(runner.instance) : !processAlive(runner.pid);
      if (!gone) continue;
      this.executions.markInterrupted(id, this.now(), 'Hearth stopped before this run finished (crash or restart); it did not complete.');
      count++;
    }
    if (count) this.logger.warn(`Marked ${count} interrupted flow run(s) as error`);
    return count;
  }

  /** Flows holding a node that may spend credits answer 402 at a zero balance before anything runs. */
  assertCreditsFor(workspaceId: string, nodes: readonly FlowNode[]): void {
    if (nodes.some((n) => this.catalog.get(n.type)?.spendsCredits(n.config))) this.services.credits.assertCanSpend(workspaceId);
  }

  /** Records the execution and starts it in the background; resolves nothing, poll the record. */
  start(run: StartRun): { executionId: string; done: Promise<void> } {
    const executionId = newId();
    const startedAt = this.now();
    this.executions.start({ id: executionId, flowId: run.flowId, workspaceId: run.owner.workspaceId, trigger: run.trigger, startedAt }, this.runner, FLOW_LIMITS.executionsKept);
    const abort = new AbortController();
    const done = this.execute(run, executionId, abort.signal).catch((error: unknown) => {
      // Only a bug gets here (runner errors are caught per node); keep the record honest anyway.
      this.logger.error(`Flow run ${executionId} crashed`, { stack: error instanceof Error ? error.stack : String(error) });
      if (!abort.signal.aborted && this.db.open) this.executions.markInterrupted(executionId, this.now(), `Internal error: ${errorText(error)}`);
    });
    this.inFlight.set(executionId, { abort, done });
    void done.finally(() => this.inFlight.delete(executionId));
    this.events.publish(run.owner, { type: 'execution.started', flowId: run.flowId, executionId, trigger: run.trigger });
    return { executionId, done };
  }

  private async execute(run: StartRun, executionId: string, signal: AbortSignal): Promise<void> {
    const outputs = new Map<string, Item[]>();
    const branches = new Map<string, Item[][]>();
    const log: LogEntry[] = [];
    const lastRuns = new Map<string, LastRun>();
    let failure: string | null = null;
    let lastProgress = Date.now();

    const inputFor = (planned: PlannedNode): Item[] => {
      const items: Item[] = [];
      for (const edge of planned.incoming) {
        const branchItems = branches.get(edge.source);
        const from = branchItems ? branchItems[edge.sourceHandle === 'false' ? 1 : 0] : outputs.get(edge.source);
        if (from) for (const item of from) items.push(item);
      }
      return items;
    };

    for (const level of plan(run.graph, this.catalog)) {
      const runnable: Array<{ planned: PlannedNode; items: Item[]; seed?: Item[] }> = [];
      for (const planned of level) {
        if (planned.isStart) {
          if (run.seeds && !run.seeds.has(planned.node.id)) continue;
          runnable.push({ planned, items: [], seed: run.seeds?.get(planned.node.id) });
          continue;
        }
        const items = inputFor(planned);
        if (items.length > 0) runnable.push({ planned, items });
      }
      if (runnable.length === 0) continue;
      const results =
        runnable.length === 1
          ? [await this.runNode(run, executionId, runnable[0].planned.node, runnable[0].items, outputs, signal, runnable[0].seed)]
          : await Promise.all(runnable.map((r) => this.runNode(run, executionId, r.planned.node, r.items, outputs, signal, r.seed)));
      if (signal.aborted) return;
      for (let i = 0; i < runnable.length; i++) {
        const node = runnable[i].planned.node;
        const { entry, result } = results[i];
        log.push(entry);
        if (entry.status === 'error') {
          failure ??= `Node ${node.id} (${node.label}) failed: ${entry.error}`;
          lastRuns.set(node.id, { status: 'error', output: [], error: entry.error });
          continue;
        }
        if (result && 'outputs' in result) {
          branches.set(node.id, result.outputs);
          // For {{[nodeN].field}}, an If node's output is every item it passed on, in input order.
          outputs.set(node.id, runnable[i].items);
          lastRuns.set(node.id, { status: 'success', output: runnable[i].items, outputs: result.outputs });
        } else if (result) {
          outputs.set(node.id, result.output);
          lastRuns.set(node.id, { status: 'success', output: result.output });
        }
        this.events.publish(run.owner, { type: 'execution.node', flowId: run.flowId, executionId, nodeId: node.id, status: entry.status });
      }
      if (failure) break;
      if (Date.now() - lastProgress > PROGRESS_EVERY_MS) {
        this.executions.progress(executionId, log);
        lastProgress = Date.now();
      }
    }
    if (signal.aborted) return;
    const status = failure ? 'error' : 'success';
    const finishedAt = this.now();
    this.db.transaction(() => {
      this.executions.finish(executionId, status, finishedAt, failure, log);
      if (this.flows.graphVersion(run.flowId) === run.graphVersion) {
        for (const [nodeId, lastRun] of lastRuns) this.flows.setLastRun(run.flowId, nodeId, lastRun);
      }
    })();
    this.events.publish(run.owner, { type: 'execution.finished', flowId: run.flowId, executionId, status, ...(failure ? { error: failure } : {}) });
  }

  private async runNode(
    run: { principal: Principal; flowId: string },
    executionId: string | null,
    node: FlowNode,
    items: Item[],
    nodeOutputs: ReadonlyMap<string, readonly Item[]>,
    signal: AbortSignal,
    seed?: Item[],
  ): Promise<{ entry: LogEntry; result?: NodeResult }> {
    const startedAt = this.now();
    const def = this.catalog.get(node.type);
    try {
      if (!def) throw new NodeError(`Unknown node type ${node.type}`);
      const pending = def.run({ nodeId: node.id, config: node.config, items, nodeOutputs, principal: run.principal, flowId: run.flowId, executionId, seed, signal, services: this.services });
      const result = pending instanceof Promise ? await pending : pending;
      const entry: LogEntry = { nodeId: node.id, status: 'success', startedAt, finishedAt: this.now(), ...('outputs' in result ? { outputs: result.outputs } : { output: result.output }) };
      return { entry, result };
    } catch (error) {
      if (!(error instanceof NodeError) && !(error instanceof ApiError)) {
        this.logger.warn(`Node ${node.id} (${node.type}) of flow ${run.flowId} threw`, { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      }
      const entry: LogEntry = { nodeId: node.id, status: 'error', startedAt, finishedAt: this.now(), ...(def?.outputs ? { outputs: [[], []] } : { output: [] }), error: errorText(error) };
      return { entry };
    }
  }

  /** POST .../nodes/{nodeId}/test: one node on given input; nothing recorded but the node's lastRun. */
  async testNode(principal: Principal, owner: FlowOwner, flowId: string, node: FlowNode, inputItems: Item[] | undefined, nodeOutputs: Record<string, Item[]>): Promise<NodeTestResult> {
    const def = this.catalog.require(node.type);
    const items = inputItems ?? (def.isStart ? [] : [{ json: {} }]);
    const abort = new AbortController();
    const { entry, result } = await this.runNode({ principal, flowId }, null, node, items, new Map(Object.entries(nodeOutputs)), abort.signal);
    const response: NodeTestResult =
      entry.status === 'error'
        ? { status: 'error', startedAt: entry.startedAt, finishedAt: entry.finishedAt, output: [], ...(def.outputs ? { outputs: [[], []] } : {}), error: entry.error }
        : result && 'outputs' in result
          ? { status: 'success', startedAt: entry.startedAt, finishedAt: entry.finishedAt, output: items, outputs: result.outputs }
          : { status: 'success', startedAt: entry.startedAt, finishedAt: entry.finishedAt, output: result?.output ?? [] };
    if (this.db.open) {
      this.flows.setLastRun(flowId, node.id, { status: response.status, output: response.output, ...(response.outputs ? { outputs: response.outputs } : {}), ...(response.error ? { error: response.error } : {}) });
    }
    this.events.publish(owner, { type: 'node.tested', flowId, nodeId: node.id, status: response.status });
    return response;
  }

  /** Resolves when no run is in flight (the CLI waits for the runs a message started). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()].map((r) => r.done));
  }

  /** Stops every run: they are recorded as error now, and their promises settle without writing again. */
  async dispose(): Promise<void> {
    liveInstances.delete(this.runner.instance);
    const runs = [...this.inFlight.entries()];
    for (const [id, run] of runs) {
      run.abort.abort();
      if (this.db.open) this.executions.markInterrupted(id, this.now(), 'Hearth stopped before this run finished (shutdown or restart); it did not complete.');
    }
    // A runner waiting on a model call cannot be interrupted; do not let it hold shutdown for long.
    await Promise.race([Promise.allSettled(runs.map(([, r]) => r.done)), new Promise((resolve) => setTimeout(resolve, DISPOSE_WAIT_MS).unref())]);
  }
}
