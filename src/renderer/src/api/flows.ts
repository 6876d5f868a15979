import type { Execution, FlowEdge, FlowNode, FlowSummary, Item, LogEntry, NodeInput, Position } from '../../../main/engine/flows/flows.types.ts';
import { apiRequest } from './http.ts';

export type { Execution, FlowEdge, FlowNode, FlowSummary, Item, LogEntry, NodeInput, Position };

const F = '/api/ai/simple-flow';

export interface FlowGraph extends FlowSummary {
  nodes: FlowNode[];
  edges: FlowEdge[];
}

/** A JSON Schema fragment, as far as the config form reads it. */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  enum?: unknown[];
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  format?: string;
  [key: string]: unknown;
}

export interface NodeTypeInfo {
  type: string;
  label: string;
  category: string;
  description?: string;
  pins: { input: boolean; output: boolean };
  configSchema: JsonSchema;
  defaultConfig: Record<string, unknown>;
  outputs?: { id: string }[];
}

export interface NodeCatalog {
  nodeTypes: NodeTypeInfo[];
  mergeFields?: unknown;
  nodeIdConvention?: unknown;
}

const flow = (flowId: string): string => `${F}/flows/${encodeURIComponent(flowId)}`;

export const flowsApi = {
  catalog: () => apiRequest<NodeCatalog>('GET', `${F}/node-types`),
  listFlows: () => apiRequest<FlowSummary[]>('GET', `${F}/flows`),
  createFlow: (name: string) => apiRequest<FlowGraph>('POST', `${F}/flows`, { name }),
  getFlow: (flowId: string) => apiRequest<FlowSummary>('GET', flow(flowId)),
  updateFlow: (flowId: string, patch: { name?: string; active?: boolean }) => apiRequest<FlowSummary>('PATCH', flow(flowId), patch),
  getGraph: (flowId: string) => apiRequest<FlowGraph>('GET', `${flow(flowId)}/graph?includeOutput=1`),

  addNode: (flowId: string, input: NodeInput & { connectFrom?: string; connectFromHandle?: string; connectTo?: string }) => apiRequest<FlowNode>('POST', `${flow(flowId)}/nodes`, input),
  updateNode: (flowId: string, nodeId: string, patch: { label?: string; description?: string; config?: Record<string, unknown>; position?: Position }) =>
    apiRequest<FlowNode>('PATCH', `${flow(flowId)}/nodes/${encodeURIComponent(nodeId)}`, patch),
  deleteNode: (flowId: string, nodeId: string) => apiRequest<{ deleted: string; removedEdges: string[] }>('DELETE', `${flow(flowId)}/nodes/${encodeURIComponent(nodeId)}`),

  addEdge: (flowId: string, edge: { source: string; target: string; sourceHandle?: string }) => apiRequest<FlowEdge>('POST', `${flow(flowId)}/edges`, edge),
  deleteEdge: (flowId: string, edgeId: string) => apiRequest<{ deleted: string }>('DELETE', `${flow(flowId)}/edges/${encodeURIComponent(edgeId)}`),

  execute: (flowId: string) => apiRequest<{ executionId: string; poll: string }>('POST', `${flow(flowId)}/execute`),
  getExecution: (flowId: string, executionId: string) => apiRequest<Execution>('GET', `${flow(flowId)}/executions/${executionId}`),
  listExecutions: (flowId: string) => apiRequest<Execution[]>('GET', `${flow(flowId)}/executions`),

  /** The change feed (server-sent events), read with the session's header by api/eventStream.ts. */
  eventsPath: (flowId: string) => `${flow(flowId)}/events`,
};

export const FINISHED_STATUSES = new Set(['success', 'error']);
