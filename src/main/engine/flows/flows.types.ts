/** Contract 2.9-2.12: the shapes the workflows API reads and writes. */

export type Json = Record<string, unknown>;

export interface Item {
  json: Json;
}

export interface Position {
  x: number;
  y: number;
}

export interface FlowSummary {
  id: string;
  name: string;
  active: boolean;
  nodeCount: number;
  edgeCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface LastRun {
  status: NodeRunStatus;
  output: Item[];
  outputs?: Item[][];
  error?: string;
}

export interface FlowNode {
  id: string;
  type: string;
  nodeType: string;
  label: string;
  description: string;
  config: Json;
  position: Position;
  lastRun?: LastRun | null;
}

export interface NodeInput {
  id?: string;
  type: string;
  label?: string;
  description?: string;
  config?: Json;
  position?: Position;
}

export interface FlowEdge {
  id: string;
  source: string;
  target: string;
  sourceHandle?: string;
}

export interface EdgeInput {
  source: string;
  target: string;
  sourceHandle?: string;
}

export interface Graph {
  nodes: FlowNode[];
  edges: FlowEdge[];
}

export type FlowWithGraph = FlowSummary & Graph;

export type NodeRunStatus = 'success' | 'error';

/** `running` is the in-progress value the contract leaves unnamed (3.3). */
export type ExecutionStatus = 'running' | 'success' | 'error';

export interface LogEntry {
  nodeId: string;
  status: NodeRunStatus;
  startedAt: string;
  finishedAt: string;
  output?: Item[];
  /** If nodes only: [trueItems, falseItems]. */
  outputs?: Item[][];
  error?: string;
}

export interface Execution {
  id: string;
  workflowId: string;
  status: ExecutionStatus;
  /** What started it: `manual` (POST execute) or `messaging` (an incoming message). */
  trigger: 'manual' | 'messaging';
  startedAt: string;
  finishedAt: string | null;
  /** Present when status is error: the failing node's error, or why the run was cut off. */
  error?: string;
  log: LogEntry[];
}

/** An incoming message, as the inbound endpoint and the CLI deliver it. */
export interface InboundMessage {
  channel: string;
  from: string;
  text: string;
  /** Anything else the bridge sends along (ids, names); kept on the item. */
  meta?: Json;
}

export const FLOW_LIMITS = {
  flowName: 200,
  executionsKept: 20,
} as const;
