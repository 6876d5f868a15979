// Contract 4.2, flows and graph editing: every row with its success and error statuses.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FlowEdge, FlowNode, FlowSummary } from '../../src/main/engine/flows/flows.types.ts';
import { createFlow, F, fixture, OTHER_UUID, runFlow, type ErrorBody, type FlowBody } from '../helpers/flows.ts';
import { TestHearth } from '../helpers/hearth.ts';

describe('workflows API: flows and graph editing', () => {
  let hearth: TestHearth;
  let token: string;
  let reader: string;
  let knowledgeOnly: string;

  before(async () => {
    hearth = await TestHearth.start();
    token = hearth.token();
    reader = hearth.token({ access: 'read' });
    knowledgeOnly = hearth.token({ resources: ['knowledge'] });
  });
  after(() => hearth.stop());

  const fieldErrors = (body: unknown): Record<string, string[]> => (body as ErrorBody).details?.fieldErrors ?? {};

  describe('GET /me', () => {
    it('answers the identity with flowId null for a personal token; 401 without a token; 403 without workflows scope', async () => {
      const me = await hearth.request('GET', `${F}/me`, { token });
      assert.equal(me.status, 200);
      assert.equal(me.body.flowId, null);
      assert.equal(me.body.access, 'write');
      assert.equal((await hearth.request('GET', `${F}/me`)).status, 401);
      assert.equal((await hearth.request('GET', `${F}/me`, { token: knowledgeOnly })).status, 403);
    });
  });

  describe('GET /node-types', () => {
    it('serves the catalog: every type with label, category, pins, JSON Schema and defaults; If has outputs; merge fields and id convention', async () => {
      const res = await hearth.request<{ nodeTypes: Array<Record<string, unknown>>; mergeFields: { syntax: string[] }; nodeIdConvention: { autoAssigned: string } }>('GET', `${F}/node-types`, { token: reader });
      assert.equal(res.status, 200);
      const types = res.body.nodeTypes.map((t) => t.type);
      assert.deepEqual(types.sort(), ['action', 'condition', 'httpRequest', 'llmChain', 'messagingTrigger', 'output', 'sendMessaging', 'trigger']);
      const byType = new Map(res.body.nodeTypes.map((t) => [t.type as string, t]));
      const condition = byType.get('condition')!;
      assert.equal(condition.label, 'If');
      assert.deepEqual(condition.outputs, [{ id: 'true' }, { id: 'false' }]);
      assert.deepEqual(byType.get('trigger')!.pins, { input: false, output: true });
      assert.deepEqual(byType.get('output')!.pins, { input: true, output: false });
      const llm = byType.get('llmChain')!;
      const schema = llm.configSchema as { type: string; properties: Record<string, unknown> };
      assert.equal(schema.type, 'object');
      for (const key of ['model', 'prompt', 'outputType', 'temperature', 'maxOutputTokens']) assert.ok(key in schema.properties, key);
      assert.equal((llm.defaultConfig as { outputType: string }).outputType, 'text');
      assert.ok('sampleData' in (byType.get('trigger')!.defaultConfig as object));
      assert.ok(res.body.mergeFields.syntax.includes('{{[nodeN].field}}'));
      assert.equal(res.body.nodeIdConvention.autoAssigned, 'nodeN');
    });

    it('403 without the workflows:read scope', async () => {
      const res = await hearth.request<ErrorBody>('GET', `${F}/node-types`, { token: knowledgeOnly });
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'INSUFFICIENT_SCOPE');
    });
  });

  describe('POST /flows and GET /flows', () => {
    it('creates a flow with nodes and edges: ids, defaults merged under a partial config, derived edge ids', async () => {
      const flow = await createFlow(hearth, token, fixture('if-branches'));
      assert.equal(flow.name, 'If with both branches');
      assert.equal(flow.active, false);
      assert.equal(flow.nodeCount, 4);
      assert.equal(flow.edgeCount, 3);
      assert.deepEqual(
        flow.nodes.map((n) => n.id),
        ['node1', 'node2', 'node3', 'node4'],
      );
      const ifNode = flow.nodes.find((n) => n.type === 'condition')!;
      assert.equal(ifNode.label, 'If');
      assert.equal(ifNode.nodeType, 'condition');
      assert.equal(ifNode.config.combine, 'all', 'omitted config fields take the defaults');
      assert.deepEqual(
        flow.edges.map((e) => e.id),
        ['e-node1-node2', 'e-node2-true-node3', 'e-node2-false-node4'],
      );
      assert.equal(flow.edges[1].sourceHandle, 'true');
    });

    it('lists only the caller\'s own flows; another user of the workspace sees none of them', async () => {
      const mine = await createFlow(hearth, token, { name: 'Mine' });
      const list = await hearth.request<FlowSummary[]>('GET', `${F}/flows`, { token: reader });
      assert.equal(list.status, 200);
      assert.ok(list.body.some((f) => f.id === mine.id));
      assert.ok(list.body.every((f) => typeof f.nodeCount === 'number' && typeof f.edgeCount === 'number'));
      const other = hearth.engine.identity.createUser(hearth.defaultWorkspaceId, 'Someone else');
      const theirs = await hearth.request<FlowSummary[]>('GET', `${F}/flows`, { token: hearth.token({ userId: other.id }) });
      assert.deepEqual(theirs.body, []);
      assert.equal((await hearth.request('GET', `${F}/flows`, { token: knowledgeOnly })).status, 403);
    });

    it('400 with fieldErrors naming the node or edge: unknown type, duplicate id, self-loop, missing pins, duplicate edge, bad handle', async () => {
      const cases: Array<{ body: unknown; key: string }> = [
        { body: { name: 'x', nodes: [{ type: 'teleport' }] }, key: 'nodes.node1.type' },
        { body: { name: 'x', nodes: [{ id: 'a', type: 'trigger' }, { id: 'a', type: 'output' }] }, key: 'nodes.a.id' },
        { body: { name: 'x', nodes: [{ type: 'action' }], edges: [{ source: 'node1', target: 'node1' }] }, key: 'edges.e-node1-node1.target' },
        { body: { name: 'x', nodes: [{ type: 'action' }, { type: 'trigger' }], edges: [{ source: 'node1', target: 'node2' }] }, key: 'edges.e-node1-node2.target' },
        { body: { name: 'x', nodes: [{ type: 'output' }, { type: 'action' }], edges: [{ source: 'node1', target: 'node2' }] }, key: 'edges.e-node1-node2.source' },
        {
          body: { name: 'x', nodes: [{ type: 'trigger' }, { type: 'output' }], edges: [{ source: 'node1', target: 'node2' }, { source: 'node1', target: 'node2' }] },
          key: 'edges.e-node1-node2.target',
        },
        { body: { name: 'x', nodes: [{ type: 'trigger' }, { type: 'output' }], edges: [{ source: 'node1', target: 'node2', sourceHandle: 'true' }] }, key: 'edges.e-node1-true-node2.sourceHandle' },
        { body: { name: 'x', nodes: [{ type: 'llmChain', config: { temperature: 9 } }] }, key: 'nodes.node1.config.temperature' },
        { body: { name: 'x', nodes: [{ type: 'trigger' }, { type: 'output' }], edges: [{ source: 'node1', target: 'node9' }] }, key: 'edges.1.target' },
      ];
      for (const { body, key } of cases.slice(0, 8)) {
        const res = await hearth.request<ErrorBody>('POST', `${F}/flows`, { token, body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.code, 'BAD_REQUEST');
        assert.ok(key in fieldErrors(res.body), `${key} in ${JSON.stringify(fieldErrors(res.body))}`);
      }
      const unknownTarget = await hearth.request<ErrorBody>('POST', `${F}/flows`, { token, body: cases[8].body });
      assert.equal(unknownTarget.status, 400);
      assert.match(JSON.stringify(fieldErrors(unknownTarget.body)), /node9/);
    });

    it('refuses cycles (flows are acyclic) with 400 naming the closing edge', async () => {
      const res = await hearth.request<ErrorBody>('POST', `${F}/flows`, {
        token,
        body: { name: 'loop', nodes: [{ type: 'trigger' }, { type: 'action' }, { type: 'action' }], edges: [{ source: 'node1', target: 'node2' }, { source: 'node2', target: 'node3' }, { source: 'node3', target: 'node2' }] },
      });
      assert.equal(res.status, 400);
      assert.match(JSON.stringify(fieldErrors(res.body)), /loop/);
    });

    it('400 on a missing or too long name; 403 for a read-only token', async () => {
      assert.equal((await hearth.request('POST', `${F}/flows`, { token, body: {} })).status, 400);
      const long = await hearth.request<ErrorBody>('POST', `${F}/flows`, { token, body: { name: 'x'.repeat(201) } });
      assert.equal(long.status, 400);
      assert.ok('name' in fieldErrors(long.body));
      assert.equal((await hearth.request('POST', `${F}/flows`, { token, body: { name: 'x'.repeat(200) } })).status, 201);
      const ro = await hearth.request<ErrorBody>('POST', `${F}/flows`, { token: reader, body: { name: 'x' } });
      assert.equal(ro.status, 403);
      assert.equal(ro.body.code, 'INSUFFICIENT_SCOPE');
    });
  });

  describe('GET and PATCH /flows/{flowId}', () => {
    it('gets the summary; PATCH renames and activates', async () => {
      const flow = await createFlow(hearth, token, { name: 'Before' });
      const got = await hearth.request<FlowSummary>('GET', `${F}/flows/${flow.id}`, { token: reader });
      assert.equal(got.status, 200);
      assert.equal(got.body.name, 'Before');
      assert.equal('nodes' in got.body, false);
      const patched = await hearth.request<FlowSummary>('PATCH', `${F}/flows/${flow.id}`, { token, body: { name: 'After', active: true } });
      assert.equal(patched.status, 200);
      assert.equal(patched.body.name, 'After');
      assert.equal(patched.body.active, true);
      assert.equal((await hearth.request<FlowSummary>('GET', `${F}/flows/${flow.id}`, { token })).body.active, true);
    });

    it('404 for an unknown id, a non-UUID id, another user\'s flow and another workspace\'s flow', async () => {
      const flow = await createFlow(hearth, token, { name: 'Private' });
      const other = hearth.engine.identity.createUser(hearth.defaultWorkspaceId, 'Colleague');
      const workspace = hearth.engine.identity.createWorkspace('Elsewhere');
      const colleague = hearth.token({ userId: other.id });
      const stranger = hearth.token({ workspaceId: workspace.id });
      for (const [path, who] of [
        [`${F}/flows/${OTHER_UUID}`, token],
        [`${F}/flows/not-a-uuid`, token],
        [`${F}/flows/${flow.id}`, colleague],
        [`${F}/flows/${flow.id}`, stranger],
        [`${F}/flows/${flow.id}/graph`, stranger],
        [`${F}/flows/${flow.id}/nodes`, colleague],
      ] as const) {
        const res = await hearth.request<ErrorBody>('GET', path, { token: who });
        assert.equal(res.status, 404, path);
        assert.equal(res.body.code, 'NOT_FOUND');
      }
      assert.equal((await hearth.request('PATCH', `${F}/flows/${flow.id}`, { token: stranger, body: { name: 'mine now' } })).status, 404);
    });

    it('PATCH: 400 on an empty body or bad values, 403 read-only, 404 unknown', async () => {
      const flow = await createFlow(hearth, token, { name: 'P' });
      assert.equal((await hearth.request('PATCH', `${F}/flows/${flow.id}`, { token, body: {} })).status, 400);
      assert.equal((await hearth.request('PATCH', `${F}/flows/${flow.id}`, { token, body: { active: 'yes' } })).status, 400);
      assert.equal((await hearth.request('PATCH', `${F}/flows/${flow.id}`, { token, body: { name: '' } })).status, 400);
      assert.equal((await hearth.request('PATCH', `${F}/flows/${flow.id}`, { token: reader, body: { name: 'n' } })).status, 403);
      assert.equal((await hearth.request('PATCH', `${F}/flows/${OTHER_UUID}`, { token, body: { name: 'n' } })).status, 404);
    });

    it('a legacy per-flow key reaches its own flow only', async () => {
      const own = await createFlow(hearth, token, { name: 'Keyed' });
      const other = await createFlow(hearth, token, { name: 'Not keyed' });
      const key = hearth.token({ flowId: own.id });
      assert.equal((await hearth.request('GET', `${F}/flows/${own.id}`, { token: key })).status, 200);
      assert.equal((await hearth.request('GET', `${F}/flows/${other.id}`, { token: key })).status, 403);
      const list = await hearth.request<FlowSummary[]>('GET', `${F}/flows`, { token: key });
      assert.deepEqual(
        list.body.map((f) => f.id),
        [own.id],
      );
      assert.equal((await hearth.request('GET', `${F}/me`, { token: key })).body.flowId, own.id);
    });
  });

  describe('GET and PUT /flows/{flowId}/graph', () => {
    it('GET returns summary, nodes and edges; includeOutput=1 adds each node\'s lastRun', async () => {
      const flow = await createFlow(hearth, token, fixture('linear'));
      const plain = await hearth.request<FlowBody>('GET', `${F}/flows/${flow.id}/graph`, { token: reader });
      assert.equal(plain.status, 200);
      assert.equal(plain.body.nodes.length, 3);
      assert.equal('lastRun' in plain.body.nodes[0], false);
      const before = await hearth.request<FlowBody>('GET', `${F}/flows/${flow.id}/graph?includeOutput=1`, { token: reader });
      assert.equal(before.body.nodes[0].lastRun, null);
      await runFlow(hearth, token, flow.id);
      const after = await hearth.request<FlowBody>('GET', `${F}/flows/${flow.id}/graph?includeOutput=1`, { token: reader });
      const last = after.body.nodes[2].lastRun!;
      assert.equal(last.status, 'success');
      assert.equal(last.output[0].json.greeting, 'Hello Ada');
      assert.equal((await hearth.request('GET', `${F}/flows/${OTHER_UUID}/graph`, { token })).status, 404);
    });

    it('PUT replaces every node and edge and resets run state', async () => {
      const flow = await createFlow(hearth, token, fixture('linear'));
      await runFlow(hearth, token, flow.id);
      const graph = (await hearth.request<FlowBody>('GET', `${F}/flows/${flow.id}/graph`, { token })).body;
      // Round trip: what GET returns can be PUT back as is (nodeType, ids of edges are ignored).
      const put = await hearth.request<FlowBody>('PUT', `${F}/flows/${flow.id}/graph`, { token, body: { nodes: graph.nodes, edges: graph.edges } });
      assert.equal(put.status, 200, put.text);
      assert.equal(put.body.nodeCount, 3);
      const after = await hearth.request<FlowBody>('GET', `${F}/flows/${flow.id}/graph?includeOutput=1`, { token });
      assert.ok(after.body.nodes.every((n) => n.lastRun === null), 'run state reset');
      const replaced = await hearth.request<FlowBody>('PUT', `${F}/flows/${flow.id}/graph`, { token, body: { nodes: [{ type: 'trigger' }, { type: 'output' }], edges: [{ source: 'node1', target: 'node2', sourceHandle: null }] } });
      assert.equal(replaced.status, 200, 'sourceHandle null (as canvas libraries send it) means none');
      assert.deepEqual(
        replaced.body.nodes.map((n) => n.type),
        ['trigger', 'output'],
      );
      assert.deepEqual(
        replaced.body.edges.map((e) => e.id),
        ['e-node1-node2'],
      );
    });

    it('PUT with any error answers 400 and saves nothing', async () => {
      const flow = await createFlow(hearth, token, fixture('linear'));
      const res = await hearth.request<ErrorBody>('PUT', `${F}/flows/${flow.id}/graph`, {
        token,
        body: { nodes: [{ type: 'trigger' }, { type: 'output' }, { type: 'nope' }], edges: [{ source: 'node1', target: 'node2' }] },
      });
      assert.equal(res.status, 400);
      assert.ok('nodes.node3.type' in fieldErrors(res.body));
      const graph = (await hearth.request<FlowBody>('GET', `${F}/flows/${flow.id}/graph`, { token })).body;
      assert.deepEqual(
        graph.nodes.map((n) => n.type),
        ['trigger', 'action', 'output'],
      );
      assert.equal((await hearth.request('PUT', `${F}/flows/${flow.id}/graph`, { token, body: { nodes: [] } })).status, 400, 'edges is required');
      assert.equal((await hearth.request('PUT', `${F}/flows/${flow.id}/graph`, { token: reader, body: { nodes: [], edges: [] } })).status, 403);
      assert.equal((await hearth.request('PUT', `${F}/flows/${OTHER_UUID}/graph`, { token, body: { nodes: [], edges: [] } })).status, 404);
    });
  });

  describe('nodes', () => {
    it('GET /nodes filters with q (id, label, description, type, config text) and type', async () => {
      const flow = await createFlow(hearth, token, {
        name: 'search',
        nodes: [
          { type: 'trigger', label: 'Start here' },
          { type: 'action', description: 'Tags VIP customers', config: { fields: { tier: 'gold' } } },
          { type: 'httpRequest', config: { url: 'https://example.invalid/orders' } },
          { type: 'output' },
        ],
      });
      const list = async (query: string): Promise<string[]> => {
        const res = await hearth.request<{ count: number; nodes: FlowNode[] }>('GET', `${F}/flows/${flow.id}/nodes${query}`, { token: reader });
        assert.equal(res.status, 200);
        assert.equal(res.body.count, res.body.nodes.length);
        return res.body.nodes.map((n) => n.id);
      };
      assert.deepEqual(await list(''), ['node1', 'node2', 'node3', 'node4']);
      assert.deepEqual(await list('?q=START'), ['node1']);
      assert.deepEqual(await list('?q=vip'), ['node2']);
      assert.deepEqual(await list('?q=gold'), ['node2']);
      assert.deepEqual(await list('?q=/orders'), ['node3']);
      assert.deepEqual(await list('?q=node4'), ['node4']);
      assert.deepEqual(await list('?q=httpreq'), ['node3']);
      assert.deepEqual(await list('?type=output'), ['node4']);
      assert.deepEqual(await list('?type=output&q=gold'), []);
      assert.equal((await hearth.request('GET', `${F}/flows/${OTHER_UUID}/nodes`, { token })).status, 404);
    });

    it('GET /nodes/{nodeId} returns the node with incoming and outgoing edges; 404 for a missing flow or node', async () => {
      const flow = await createFlow(hearth, token, fixture('if-branches'));
      const res = await hearth.request<FlowNode & { incoming: FlowEdge[]; outgoing: FlowEdge[] }>('GET', `${F}/flows/${flow.id}/nodes/node2`, { token: reader });
      assert.equal(res.status, 200);
      assert.equal(res.body.type, 'condition');
      assert.deepEqual(
        res.body.incoming.map((e) => e.id),
        ['e-node1-node2'],
      );
      assert.deepEqual(
        res.body.outgoing.map((e) => e.id),
        ['e-node2-true-node3', 'e-node2-false-node4'],
      );
      assert.equal((await hearth.request('GET', `${F}/flows/${flow.id}/nodes/node99`, { token })).status, 404);
      assert.equal((await hearth.request('GET', `${F}/flows/${OTHER_UUID}/nodes/node1`, { token })).status, 404);
    });

    it('POST /nodes assigns the next nodeN, merges a partial config over the defaults, and connects from and to', async () => {
      const flow = await createFlow(hearth, token, { name: 'build', nodes: [{ type: 'trigger' }, { type: 'condition' }, { type: 'output' }], edges: [{ source: 'node1', target: 'node2' }] });
      const created = await hearth.request<FlowNode>('POST', `${F}/flows/${flow.id}/nodes`, {
        token,
        body: { type: 'llmChain', config: { prompt: 'Summarise {{text}}' }, connectFrom: 'node2', connectFromHandle: 'false', connectTo: 'node3' },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.id, 'node4');
      assert.equal(created.body.config.prompt, 'Summarise {{text}}');
      assert.equal(created.body.config.outputType, 'text');
      assert.equal(created.body.config.maxOutputTokens, 512);
      assert.equal(created.body.position.x, flow.nodes[1].position.x + 320, 'placed one step right of connectFrom');
      const edges = (await hearth.request<{ edges: FlowEdge[] }>('GET', `${F}/flows/${flow.id}/edges`, { token })).body.edges.map((e) => e.id);
      assert.deepEqual(edges, ['e-node1-node2', 'e-node2-false-node4', 'e-node4-node3']);
      const named = await hearth.request<FlowNode>('POST', `${F}/flows/${flow.id}/nodes`, { token, body: { type: 'action', id: 'tagger', label: 'Tag', description: 'adds a tag', position: { x: 5, y: 6 } } });
      assert.equal(named.status, 201);
      assert.deepEqual(named.body.position, { x: 5, y: 6 });
      assert.equal((await hearth.request<FlowNode>('POST', `${F}/flows/${flow.id}/nodes`, { token, body: { type: 'action' } })).body.id, 'node5');
    });

    it('POST /nodes: 400 for unknown type, taken id, invalid connection or config; 403; 404', async () => {
      const flow = await createFlow(hearth, token, { name: 'bad', nodes: [{ type: 'trigger' }, { type: 'action' }] });
      const cases: Array<{ body: unknown; key: string }> = [
        { body: { type: 'warp' }, key: 'type' },
        { body: { type: 'action', id: 'node1' }, key: 'id' },
        { body: { type: 'action', id: 'has-dash' }, key: 'id' },
        { body: { type: 'action', connectTo: 'node1' }, key: 'connectTo' },
        { body: { type: 'action', connectFrom: 'node42' }, key: 'connectFrom' },
        { body: { type: 'action', connectFrom: 'node1', connectFromHandle: 'true' }, key: 'connectFromHandle' },
        { body: { type: 'action', connectFromHandle: 'true' }, key: 'connectFromHandle' },
        { body: { type: 'output', connectTo: 'node2' }, key: 'connectTo' },
        { body: { type: 'httpRequest', config: { method: 'BREW' } }, key: 'config.method' },
        { body: { type: 'action', config: { operation: 'knowledgeSearch' } }, key: 'config.kbId' },
        { body: { type: 'llmChain', config: { unknownKey: 1 } }, key: 'config' },
      ];
      for (const { body, key } of cases) {
        const res = await hearth.request<ErrorBody>('POST', `${F}/flows/${flow.id}/nodes`, { token, body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.ok(key in fieldErrors(res.body), `${key} in ${JSON.stringify(fieldErrors(res.body))}`);
      }
      assert.equal((await hearth.request<{ count: number }>('GET', `${F}/flows/${flow.id}/nodes`, { token })).body.count, 2, 'nothing was added');
      assert.equal((await hearth.request('POST', `${F}/flows/${flow.id}/nodes`, { token: reader, body: { type: 'action' } })).status, 403);
      assert.equal((await hearth.request('POST', `${F}/flows/${OTHER_UUID}/nodes`, { token, body: { type: 'action' } })).status, 404);
    });

    it('PATCH: config replaces (omitted fields back to defaults), configPatch merges, position and label change', async () => {
      const flow = await createFlow(hearth, token, { name: 'edit', nodes: [{ type: 'llmChain', config: { prompt: 'A', temperature: 0.1 } }] });
      const url = `${F}/flows/${flow.id}/nodes/node1`;
      const merged = await hearth.request<FlowNode>('PATCH', url, { token, body: { configPatch: { prompt: 'B' } } });
      assert.equal(merged.status, 200);
      assert.equal(merged.body.config.prompt, 'B');
      assert.equal(merged.body.config.temperature, 0.1, 'configPatch keeps the other fields');
      const replaced = await hearth.request<FlowNode>('PATCH', url, { token, body: { config: { prompt: 'C' } } });
      assert.equal(replaced.body.config.prompt, 'C');
      assert.equal(replaced.body.config.temperature, 0.7, 'config replaces: temperature back to its default');
      const moved = await hearth.request<FlowNode>('PATCH', url, { token, body: { position: { x: 640, y: 80 }, label: 'Summariser', description: 'sums up' } });
      assert.deepEqual(moved.body.position, { x: 640, y: 80 });
      assert.equal(moved.body.label, 'Summariser');
      assert.equal((await hearth.request<FlowNode>('GET', url, { token })).body.description, 'sums up');
    });

    it('PATCH: 400 for both config and configPatch, invalid values or an empty body; 403; 404 for flow or node', async () => {
      const flow = await createFlow(hearth, token, { name: 'edit2', nodes: [{ type: 'llmChain' }] });
      const url = `${F}/flows/${flow.id}/nodes/node1`;
      const both = await hearth.request<ErrorBody>('PATCH', url, { token, body: { config: {}, configPatch: {} } });
      assert.equal(both.status, 400);
      assert.ok('configPatch' in fieldErrors(both.body));
      const bad = await hearth.request<ErrorBody>('PATCH', url, { token, body: { configPatch: { outputType: 'xml' } } });
      assert.equal(bad.status, 400);
      assert.ok('configPatch.outputType' in fieldErrors(bad.body));
      assert.equal((await hearth.request('PATCH', url, { token, body: {} })).status, 400);
      assert.equal((await hearth.request('PATCH', url, { token: reader, body: { label: 'x' } })).status, 403);
      assert.equal((await hearth.request('PATCH', `${F}/flows/${flow.id}/nodes/node7`, { token, body: { label: 'x' } })).status, 404);
      assert.equal((await hearth.request('PATCH', `${F}/flows/${OTHER_UUID}/nodes/node1`, { token, body: { label: 'x' } })).status, 404);
    });

    it('DELETE removes the node and every edge touching it; 403; 404', async () => {
      const flow = await createFlow(hearth, token, fixture('if-branches'));
      const res = await hearth.request<{ deleted: string; removedEdges: string[] }>('DELETE', `${F}/flows/${flow.id}/nodes/node2`, { token });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { deleted: 'node2', removedEdges: ['e-node1-node2', 'e-node2-true-node3', 'e-node2-false-node4'] });
      const graph = (await hearth.request<FlowBody>('GET', `${F}/flows/${flow.id}/graph`, { token })).body;
      assert.equal(graph.nodeCount, 3);
      assert.equal(graph.edgeCount, 0);
      assert.equal((await hearth.request('DELETE', `${F}/flows/${flow.id}/nodes/node2`, { token })).status, 404);
      assert.equal((await hearth.request('DELETE', `${F}/flows/${flow.id}/nodes/node1`, { token: reader })).status, 403);
      assert.equal((await hearth.request('DELETE', `${F}/flows/${OTHER_UUID}/nodes/node1`, { token })).status, 404);
    });
  });

  describe('edges', () => {
    it('GET /edges lists them with a count; 404 for an unknown flow', async () => {
      const flow = await createFlow(hearth, token, fixture('linear'));
      const res = await hearth.request<{ count: number; edges: FlowEdge[] }>('GET', `${F}/flows/${flow.id}/edges`, { token: reader });
      assert.equal(res.status, 200);
      assert.equal(res.body.count, 2);
      assert.deepEqual(res.body.edges[0], { id: 'e-node1-node2', source: 'node1', target: 'node2' });
      assert.equal((await hearth.request('GET', `${F}/flows/${OTHER_UUID}/edges`, { token })).status, 404);
    });

    it('POST /edges creates e-<source>-<target>, and e-<source>-<handle>-<target> from an If node (default true)', async () => {
      const flow = await createFlow(hearth, token, { name: 'wire', nodes: [{ type: 'trigger' }, { type: 'condition' }, { type: 'output' }, { type: 'output' }] });
      const plain = await hearth.request<FlowEdge>('POST', `${F}/flows/${flow.id}/edges`, { token, body: { source: 'node1', target: 'node2' } });
      assert.equal(plain.status, 201);
      assert.deepEqual(plain.body, { id: 'e-node1-node2', source: 'node1', target: 'node2' });
      const yes = await hearth.request<FlowEdge>('POST', `${F}/flows/${flow.id}/edges`, { token, body: { source: 'node2', target: 'node3' } });
      assert.deepEqual(yes.body, { id: 'e-node2-true-node3', source: 'node2', target: 'node3', sourceHandle: 'true' });
      const no = await hearth.request<FlowEdge>('POST', `${F}/flows/${flow.id}/edges`, { token, body: { source: 'node2', target: 'node4', sourceHandle: 'false' } });
      assert.equal(no.body.id, 'e-node2-false-node4');
    });

    it('POST /edges: 400 for self-loop, duplicate, missing pin, bad handle, unknown node, cycle; 403; 404', async () => {
      const flow = await createFlow(hearth, token, {
        name: 'bad edges',
        nodes: [{ type: 'trigger' }, { type: 'action' }, { type: 'action' }, { type: 'output' }],
        edges: [{ source: 'node1', target: 'node2' }, { source: 'node2', target: 'node3' }],
      });
      const cases: Array<{ body: unknown; key: string }> = [
        { body: { source: 'node2', target: 'node2' }, key: 'target' },
        { body: { source: 'node1', target: 'node2' }, key: 'target' },
        { body: { source: 'node2', target: 'node1' }, key: 'target' },
        { body: { source: 'node4', target: 'node2' }, key: 'source' },
        { body: { source: 'node2', target: 'node4', sourceHandle: 'false' }, key: 'sourceHandle' },
        { body: { source: 'node2', target: 'node4', sourceHandle: 'maybe' }, key: 'sourceHandle' },
        { body: { source: 'ghost', target: 'node4' }, key: 'source' },
        { body: { source: 'node3', target: 'node2' }, key: 'target' },
        { body: { source: 'node1' }, key: 'target' },
      ];
      for (const { body, key } of cases) {
        const res = await hearth.request<ErrorBody>('POST', `${F}/flows/${flow.id}/edges`, { token, body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.ok(key in fieldErrors(res.body), `${key} in ${JSON.stringify(fieldErrors(res.body))}`);
      }
      assert.equal((await hearth.request<{ count: number }>('GET', `${F}/flows/${flow.id}/edges`, { token })).body.count, 2);
      assert.equal((await hearth.request('POST', `${F}/flows/${flow.id}/edges`, { token: reader, body: { source: 'node3', target: 'node4' } })).status, 403);
      assert.equal((await hearth.request('POST', `${F}/flows/${OTHER_UUID}/edges`, { token, body: { source: 'node3', target: 'node4' } })).status, 404);
    });

    it('DELETE /edges/{edgeId}: 200 { deleted }; 404 for an unknown edge or flow; 403', async () => {
      const flow = await createFlow(hearth, token, fixture('linear'));
      assert.equal((await hearth.request('DELETE', `${F}/flows/${flow.id}/edges/e-node1-node2`, { token: reader })).status, 403);
      const res = await hearth.request('DELETE', `${F}/flows/${flow.id}/edges/e-node1-node2`, { token });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { deleted: 'e-node1-node2' });
      assert.equal((await hearth.request('DELETE', `${F}/flows/${flow.id}/edges/e-node1-node2`, { token })).status, 404);
      assert.equal((await hearth.request('DELETE', `${F}/flows/${OTHER_UUID}/edges/e-node1-node2`, { token })).status, 404);
    });

    it('DELETE /edges?source=&target=&sourceHandle= removes the matching edges: 200 { deleted, count }; 400 without endpoints; 404 when none match', async () => {
      const flow = await createFlow(hearth, token, fixture('if-branches'));
      const url = `${F}/flows/${flow.id}/edges`;
      const byHandle = await hearth.request<{ deleted: string[]; count: number }>('DELETE', `${url}?source=node2&sourceHandle=false`, { token });
      assert.equal(byHandle.status, 200);
      assert.deepEqual(byHandle.body, { deleted: ['e-node2-false-node4'], count: 1 });
      const bySource = await hearth.request<{ deleted: string[] }>('DELETE', `${url}?source=node2`, { token });
      assert.deepEqual(bySource.body.deleted, ['e-node2-true-node3']);
      const pair = await hearth.request<{ deleted: string[] }>('DELETE', `${url}?source=node1&target=node2`, { token });
      assert.deepEqual(pair.body.deleted, ['e-node1-node2']);
      assert.equal((await hearth.request('DELETE', `${url}?source=node1&target=node2`, { token })).status, 404);
      const none = await hearth.request<ErrorBody>('DELETE', url, { token });
      assert.equal(none.status, 400);
      assert.equal((await hearth.request('DELETE', `${url}?source=node1`, { token: reader })).status, 403);
      assert.equal((await hearth.request('DELETE', `${F}/flows/${OTHER_UUID}/edges?source=node1`, { token })).status, 404);
    });
  });
});
