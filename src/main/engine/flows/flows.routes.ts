import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../http/route.ts';
import { FLOW_LIMITS } from './flows.types.ts';
import { itemSchema, jsonObjectSchema } from './nodes/node.types.ts';

// Graph limits the contract leaves open ("not shown"): generous for a hand-built flow, small enough to keep a run bounded.
const MAX_NODES = 500;
const MAX_EDGES = 2000;

const name = z.string().trim().min(1, 'Name is required').max(FLOW_LIMITS.flowName, `At most ${FLOW_LIMITS.flowName} characters`);
const position = z.object({ x: z.number(), y: z.number() });
const handle = z.enum(['true', 'false']);

// Unknown keys are dropped rather than refused, so a graph read with GET (nodeType, lastRun, edge ids) can be PUT back as is.
const nodeInput = z.object({
  id: z.string().min(1).max(64).optional(),
  type: z.string().min(1, 'type is required'),
  label: z.string().max(200).optional(),
  description: z.string().max(2000).optional(),
  config: jsonObjectSchema.optional(),
  position: position.optional(),
});
// Canvas libraries send sourceHandle: null for plain edges; it means the same as leaving it out.
const edgeInput = z.object({
  source: z.string().min(1),
  target: z.string().min(1),
  sourceHandle: handle.nullish().transform((v) => v ?? undefined),
});

const createFlowBody = z.object({
  name,
  active: z.boolean().optional(),
  nodes: z.array(nodeInput).max(MAX_NODES).optional(),
  edges: z.array(edgeInput).max(MAX_EDGES).optional(),
});

const patchFlowBody = z
  .strictObject({ name, active: z.boolean() })
  .partial()
  .refine((b) => Object.keys(b).length > 0, { message: 'Send name, active or both' });

const putGraphBody = z.object({ nodes: z.array(nodeInput).max(MAX_NODES), edges: z.array(edgeInput).max(MAX_EDGES) });

const includeOutput = z
  .enum(['1', 'true', '0', 'false'])
  .optional()
  .transform((v) => v === '1' || v === 'true');

const graphQuery = z.object({ includeOutput });
const nodesQuery = z.object({ q: z.string().max(500).optional(), type: z.string().max(100).optional(), includeOutput });

const createNodeBody = nodeInput.extend({
  connectFrom: z.string().min(1).optional(),
  connectFromHandle: handle.optional(),
  connectTo: z.string().min(1).optional(),
});

const patchNodeBody = z
  .strictObject({
    label: z.string().max(200),
    description: z.string().max(2000),
    config: jsonObjectSchema,
    configPatch: jsonObjectSchema,
    position,
  })
  .partial()
  .refine((b) => Object.keys(b).length > 0, { message: 'Send at least one of label, description, config, configPatch, position' });

const testNodeBody = z.object({
  inputItems: z.array(itemSchema).max(1000).optional(),
  nodeOutputs: z.record(z.string(), z.array(itemSchema)).optional(),
});

const deleteEdgesQuery = z.object({ source: z.string().min(1).optional(), target: z.string().min(1).optional(), sourceHandle: handle.optional() });

const flow = ['flowId'] as const;
const flowAndExecution = ['flowId', 'executionId'] as const;

export const flowsRoutes: AnyRoute[] = [
  defineRoute({
    method: 'GET',
    family: 'workflows',
    path: '/node-types',
    scope: 'workflows:read',
    handler: ({ engine }) => engine.flows.catalog.describe(),
  }),
  defineRoute({
    method: 'GET',
    family: 'workflows',
    path: '/flows',
    scope: 'workflows:read',
    handler: ({ engine, principal }) => engine.flows.list(principal),
  }),
  defineRoute({
    method: 'POST',
    family: 'workflows',
    path: '/flows',
    scope: 'workflows:write',
    body: createFlowBody,
    status: 201,
    handler: ({ engine, principal, body }) => engine.flows.create(principal, body),
  }),
  defineRoute({
    method: 'GET',
    family: 'workflows',
    path: '/flows/:flowId',
    scope: 'workflows:read',
    uuidParams: flow,
    handler: ({ engine, principal, params }) => engine.flows.get(principal, params.flowId),
  }),
  defineRoute({
    method: 'PATCH',
    family: 'workflows',
    path: '/flows/:flowId',
    scope: 'workflows:write',
    uuidParams: flow,
    body: patchFlowBody,
    handler: ({ engine, principal, params, body }) => engine.flows.update(principal, params.flowId, body),
  }),
  defineRoute({
    method: 'GET',
    family: 'workflows',
    path: '/flows/:flowId/graph',
    scope: 'workflows:read',
    uuidParams: flow,
    query: graphQuery,
    handler: ({ engine, principal, params, query }) => engine.flows.graph(principal, params.flowId, query.includeOutput),
  }),
  defineRoute({
    method: 'PUT',
    family: 'workflows',
    path: '/flows/:flowId/graph',
    scope: 'workflows:write',
    uuidParams: flow,
    body: putGraphBody,
    handler: ({ engine, principal, params, body }) => engine.flows.replaceGraph(principal, params.flowId, body),
  }),
  defineRoute({
    method: 'GET',
    family: 'workflows',
    path: '/flows/:flowId/nodes',
    scope: 'workflows:read',
    uuidParams: flow,
    query: nodesQuery,
    handler: ({ engine, principal, params, query }) => engine.flows.listNodes(principal, params.flowId, query),
  }),
  defineRoute({
    method: 'GET',
    family: 'workflows',
    path: '/flows/:flowId/nodes/:nodeId',
    scope: 'workflows:read',
    uuidParams: flow,
    query: graphQuery,
    handler: ({ engine, principal, params, query }) => engine.flows.getNode(principal, params.flowId, params.nodeId, query.includeOutput),
  }),
  defineRoute({
    method: 'POST',
    family: 'workflows',
    path: '/flows/:flowId/nodes',
    scope: 'workflows:write',
    uuidParams: flow,
    body: createNodeBody,
    status: 201,
    handler: ({ engine, principal, params, body }) => engine.flows.createNode(principal, params.flowId, body),
  }),
  defineRoute({
    method: 'PATCH',
    family: 'workflows',
    path: '/flows/:flowId/nodes/:nodeId',
    scope: 'workflows:write',
    uuidParams: flow,
    body: patchNodeBody,
    handler: ({ engine, principal, params, body }) => engine.flows.updateNode(principal, params.flowId, params.nodeId, body),
  }),
  defineRoute({
    method: 'DELETE',
    family: 'workflows',
    path: '/flows/:flowId/nodes/:nodeId',
    scope: 'workflows:write',
    uuidParams: flow,
    handler: ({ engine, principal, params }) => engine.flows.deleteNode(principal, params.flowId, params.nodeId),
  }),
  defineRoute({
    method: 'POST',
    family: 'workflows',
    path: '/flows/:flowId/nodes/:nodeId/test',
    scope: 'workflows:write',
    uuidParams: flow,
    body: testNodeBody,
    handler: ({ engine, principal, params, body }) => engine.flows.testNode(principal, params.flowId, params.nodeId, body),
  }),
  defineRoute({
    method: 'GET',
    family: 'workflows',
    path: '/flows/:flowId/edges',
    scope: 'workflows:read',
    uuidParams: flow,
    handler: ({ engine, principal, params }) => engine.flows.listEdges(principal, params.flowId),
  }),
  defineRoute({
    method: 'POST',
    family: 'workflows',
    path: '/flows/:flowId/edges',
    scope: 'workflows:write',
    uuidParams: flow,
    body: edgeInput,
    status: 201,
    handler: ({ engine, principal, params, body }) => engine.flows.createEdge(principal, params.flowId, body),
  }),
  defineRoute({
    method: 'DELETE',
    family: 'workflows',
    path: '/flows/:flowId/edges/:edgeId',
    scope: 'workflows:write',
    uuidParams: flow,
    handler: ({ engine, principal, params }) => engine.flows.deleteEdge(principal, params.flowId, params.edgeId),
  }),
  defineRoute({
    method: 'DELETE',
    family: 'workflows',
    path: '/flows/:flowId/edges',
    scope: 'workflows:write',
    uuidParams: flow,
    query: deleteEdgesQuery,
    handler: ({ engine, principal, params, query }) => engine.flows.deleteEdgesByEndpoints(principal, params.flowId, query),
  }),
  defineRoute({
    method: 'POST',
    family: 'workflows',
    path: '/flows/:flowId/execute',
    scope: 'workflows:write',
    uuidParams: flow,
    status: 202,
    handler: ({ engine, principal, params }) => {
      const { executionId, poll } = engine.flows.execute(principal, params.flowId);
      return { executionId, poll };
    },
  }),
  defineRoute({
    method: 'GET',
    family: 'workflows',
    path: '/flows/:flowId/executions',
    scope: 'workflows:read',
    uuidParams: flow,
    handler: ({ engine, principal, params }) => engine.flows.listExecutions(principal, params.flowId),
  }),
  defineRoute({
    method: 'GET',
    family: 'workflows',
    path: '/flows/:flowId/executions/:executionId',
    scope: 'workflows:read',
    uuidParams: flowAndExecution,
    handler: ({ engine, principal, params }) => engine.flows.getExecution(principal, params.flowId, params.executionId),
  }),
  defineRoute({
    method: 'GET',
    family: 'workflows',
    path: '/flows/:flowId/events',
    scope: 'workflows:read',
    uuidParams: flow,
    handler: ({ engine, principal, params, request, reply }) => {
      engine.flows.requireFlow(principal, params.flowId);
      return engine.flows.events.stream(request, reply, { workspaceId: principal.workspaceId, userId: principal.userId }, params.flowId);
    },
  }),
  defineRoute({
    method: 'GET',
    family: 'workflows',
    path: '/events',
    scope: 'workflows:read',
    handler: ({ engine, principal, request, reply }) =>
      engine.flows.events.stream(request, reply, { workspaceId: principal.workspaceId, userId: principal.userId }, principal.flowId),
  }),
];
