// Contract 3.3 and 4.2, running flows: execute, executions, node test. Each test draws its graph.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { completionCredits } from '../../src/main/engine/credits/pricing.ts';
import type { Execution, Item } from '../../src/main/engine/flows/flows.types.ts';
import { FakeLlmServer } from '../helpers/fake-llm-server.ts';
import { createFlow, entryOf, F, fixture, json, LocalServer, OTHER_UUID, runFlow, waitForExecution, type ErrorBody } from '../helpers/flows.ts';
import { PROJECT_ROOT, TestHearth } from '../helpers/hearth.ts';

interface TestReply {
  status: 'success' | 'error';
  startedAt: string;
  finishedAt: string;
  output: Item[];
  outputs?: Item[][];
  error?: string;
}

describe('workflows API: execution', () => {
  let hearth: TestHearth;
  let token: string;
  let reader: string;
  let api: LocalServer;
  let fake: FakeLlmServer;

  before(async () => {
    hearth = await TestHearth.start();
    token = hearth.token();
    reader = hearth.token({ access: 'read' });
    fake = await FakeLlmServer.start();
    // An outside HTTP API the httpRequest node calls: it echoes, fails or never answers on demand.
    api = await LocalServer.start((req, res) => {
      const url = new URL(req.url, 'http://x');
      if (url.pathname === '/fail') return json(res, 500, { error: 'boom' });
      if (url.pathname === '/hang') return; // never answers
      if (url.pathname === '/slow') return void setTimeout(() => json(res, 200, { slow: true }), 300);
      if (url.pathname === '/text') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('plain words');
      if (url.pathname.startsWith('/users/')) return json(res, 200, { id: Number(url.pathname.split('/')[2]), plan: 'pro' });
      return json(res, 200, { method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers: { 'x-team': req.headers['x-team'] ?? null }, body: req.body ? (JSON.parse(req.body) as unknown) : null });
    });
  });
  after(async () => {
    await hearth.stop();
    await api.close();
    await fake.close();
  });

  const names = (items: Item[] | undefined): unknown[] => (items ?? []).map((i) => i.json.name);

  describe('POST /flows/{flowId}/execute', () => {
    //   [trigger] --> [action: greeting] --> [output]
    it('linear: answers 202 { executionId, poll }, runs in the background, logs one entry per node', async () => {
      const flow = await createFlow(hearth, token, fixture('linear'));
      const res = await hearth.request<{ executionId: string; poll: string }>('POST', `${F}/flows/${flow.id}/execute`, { token });
      assert.equal(res.status, 202);
      assert.equal(res.body.poll, `${F}/flows/${flow.id}/executions/${res.body.executionId}`);
      const execution = await waitForExecution(hearth, token, res.body.poll);
      assert.equal(execution.id, res.body.executionId);
      assert.equal(execution.workflowId, flow.id);
      assert.equal(execution.status, 'success');
      assert.ok(execution.finishedAt && execution.finishedAt >= execution.startedAt);
      assert.deepEqual(
        execution.log.map((e) => [e.nodeId, e.status]),
        [
          ['node1', 'success'],
          ['node2', 'success'],
          ['node3', 'success'],
        ],
      );
      assert.deepEqual(entryOf(execution, 'node3').output, [{ json: { name: 'Ada', greeting: 'Hello Ada' } }]);
      for (const entry of execution.log) assert.ok(entry.startedAt && entry.finishedAt);
    });

    //              +--> [action A: via=a]
    //   [trigger] -+
    //              +--> [action B: via=b]
    it('fan-out: every target receives every item of the source', async () => {
      const flow = await createFlow(hearth, token, {
        name: 'fan-out',
        nodes: [{ type: 'trigger', config: { sampleData: [{ name: 'x' }, { name: 'y' }] } }, { type: 'action', config: { fields: { via: 'a' } } }, { type: 'action', config: { fields: { via: 'b' } } }],
        edges: [{ source: 'node1', target: 'node2' }, { source: 'node1', target: 'node3' }],
      });
      const execution = await runFlow(hearth, token, flow.id);
      assert.equal(execution.status, 'success');
      assert.deepEqual(entryOf(execution, 'node2').output, [{ json: { name: 'x', via: 'a' } }, { json: { name: 'y', via: 'a' } }]);
      assert.deepEqual(entryOf(execution, 'node3').output, [{ json: { name: 'x', via: 'b' } }, { json: { name: 'y', via: 'b' } }]);
    });

    //              +--> [A: via=a] --+
    //   [trigger] -+                 +--> [C: output]
    //              +--> [B: slow] ---+
    it('fan-in: a node runs once, after all its inputs, with their items in edge order', async () => {
      const flow = await createFlow(hearth, token, {
        name: 'fan-in',
        nodes: [
          { type: 'trigger', config: { sampleData: { name: 'x' } } },
          { type: 'action', config: { fields: { via: 'a' } } },
          { type: 'httpRequest', config: { url: `${api.url}/users/3` } },
          { type: 'output', config: { fields: ['name', 'via', 'response.body.plan'] } },
        ],
        edges: [{ source: 'node1', target: 'node2' }, { source: 'node1', target: 'node3' }, { source: 'node2', target: 'node4' }, { source: 'node3', target: 'node4' }],
      });
      const execution = await runFlow(hearth, token, flow.id);
      assert.equal(execution.status, 'success');
      assert.equal(execution.log.filter((e) => e.nodeId === 'node4').length, 1, 'the fan-in node ran once');
      assert.deepEqual(entryOf(execution, 'node4').output, [{ json: { name: 'x', via: 'a' } }, { json: { name: 'x', response: { body: { plan: 'pro' } } } }]);
      const order = execution.log.map((e) => e.nodeId);
      assert.ok(order.indexOf('node4') > order.indexOf('node3') && order.indexOf('node4') > order.indexOf('node2'));
    });

    //                          true
    //   [trigger] --> [If amount >= 100] --> [Big]
    //                          |  false
    //                          +--------> [Small]
    it('If with both branches: items go to true or false; the log holds outputs [true, false]', async () => {
      const flow = await createFlow(hearth, token, fixture('if-branches'));
      const execution = await runFlow(hearth, token, flow.id);
      assert.equal(execution.status, 'success');
      const ifEntry = entryOf(execution, 'node2');
      assert.equal(ifEntry.output, undefined);
      assert.deepEqual(ifEntry.outputs!.map(names), [['Ada', 'Cy'], ['Bob']]);
      assert.deepEqual(
        entryOf(execution, 'node3').output!.map((i) => [i.json.name, i.json.size]),
        [
          ['Ada', 'big'],
          ['Cy', 'big'],
        ],
      );
      assert.deepEqual(
        entryOf(execution, 'node4').output!.map((i) => [i.json.name, i.json.size]),
        [['Bob', 'small']],
      );
    });

    //                          true
    //   [trigger] --> [If text contains "refund"] --> [A] --> [B]
    //                          |  false
    //                          +--------> [C]
    it('a node that receives no items does not run, nor do the nodes after it', async () => {
      const flow = await createFlow(hearth, token, {
        name: 'no items',
        nodes: [
          { type: 'trigger', config: { sampleData: { text: 'Where is my parcel?' } } },
          { type: 'condition', config: { combine: 'any', ignoreCase: true, conditions: [{ field: 'text', operator: 'contains', value: 'REFUND' }, { field: 'priority', operator: 'exists' }] } },
          { type: 'action' },
          { type: 'action' },
          { type: 'action', config: { fields: { routed: 'general' } } },
        ],
        edges: [{ source: 'node1', target: 'node2' }, { source: 'node2', target: 'node3' }, { source: 'node3', target: 'node4' }, { source: 'node2', target: 'node5', sourceHandle: 'false' }],
      });
      const execution = await runFlow(hearth, token, flow.id);
      assert.equal(execution.status, 'success');
      assert.deepEqual(
        execution.log.map((e) => e.nodeId),
        ['node1', 'node2', 'node5'],
      );
      assert.equal(entryOf(execution, 'node5').output![0].json.routed, 'general');
    });

    //   [trigger] --> [httpRequest -> 500] --> [action]
    it('a failing node stops the run: status error, its log entry holds the error, later nodes do not run', async () => {
      const flow = await createFlow(hearth, token, {
        name: 'fails',
        nodes: [{ type: 'trigger' }, { type: 'httpRequest', config: { url: `${api.url}/fail` } }, { type: 'action' }],
        edges: [{ source: 'node1', target: 'node2' }, { source: 'node2', target: 'node3' }],
      });
      const execution = await runFlow(hearth, token, flow.id);
      assert.equal(execution.status, 'error');
      assert.deepEqual(
        execution.log.map((e) => [e.nodeId, e.status]),
        [
          ['node1', 'success'],
          ['node2', 'error'],
        ],
      );
      assert.match(entryOf(execution, 'node2').error!, /answered 500/);
      assert.match(execution.error!, /node2/);
      const graph = await hearth.request<{ nodes: Array<{ id: string; lastRun: { status: string; error?: string } | null }> }>('GET', `${F}/flows/${flow.id}/graph?includeOutput=1`, { token });
      assert.equal(graph.body.nodes[1].lastRun!.status, 'error');
      assert.match(graph.body.nodes[1].lastRun!.error!, /500/);
      assert.equal(graph.body.nodes[2].lastRun, null);
    });

    //   [trigger {user}] --> [GET /users/{{user.id}}] --> [action: summary from node1 and node2]
    it('merge fields: {{field}}, dotted paths and {{[nodeN].field}} across nodes; a lone merge field keeps its type', async () => {
      const flow = await createFlow(hearth, token, {
        name: 'merge',
        nodes: [
          { type: 'trigger', config: { sampleData: { user: { name: 'Ada', id: 7 }, tags: ['a', 'b'] } } },
          { type: 'httpRequest', config: { url: `${api.url}/users/{{user.id}}` } },
          { type: 'action', config: { keepOnlySet: true, fields: { summary: '{{[node1].user.name}} is on {{response.body.plan}}', userId: '{{[node1].user.id}}', firstTag: '{{tags.0}}', 'deep.missing': 'x{{nothing.here}}y' } } },
        ],
        edges: [{ source: 'node1', target: 'node2' }, { source: 'node2', target: 'node3' }],
      });
      const execution = await runFlow(hearth, token, flow.id);
      assert.equal(execution.status, 'success', JSON.stringify(execution));
      assert.deepEqual(entryOf(execution, 'node3').output, [{ json: { summary: 'Ada is on pro', userId: 7, firstTag: 'a', deep: { missing: 'xy' } } }]);
    });

    //   [trigger] --> [POST {{api}}/echo with headers, query, JSON body] --> [GET /text]
    it('httpRequest against a server on 127.0.0.1: method, headers, query and JSON body out; JSON and text responses in', async () => {
      const flow = await createFlow(hearth, token, {
        name: 'http',
        nodes: [
          { type: 'trigger', config: { sampleData: { team: 'blue', q: 'shoes' } } },
          { type: 'httpRequest', config: { method: 'POST', url: `${api.url}/echo`, headers: { 'x-team': '{{team}}' }, query: { search: '{{q}}' }, body: { team: '{{team}}', n: 2 } } },
          { type: 'httpRequest', config: { url: `${api.url}/text`, responseFormat: 'text' } },
        ],
        edges: [{ source: 'node1', target: 'node2' }, { source: 'node2', target: 'node3' }],
      });
      const execution = await runFlow(hearth, token, flow.id);
      assert.equal(execution.status, 'success', JSON.stringify(execution));
      const echoed = entryOf(execution, 'node2').output![0].json.response as { status: number; body: Record<string, unknown> };
      assert.equal(echoed.status, 200);
      assert.deepEqual(echoed.body, { method: 'POST', path: '/echo', query: { search: 'shoes' }, headers: { 'x-team': 'blue' }, body: { team: 'blue', n: 2 } });
      assert.equal((entryOf(execution, 'node3').output![0].json.response as { body: string }).body, 'plain words');
    });

    //   [trigger] --> [GET /hang, timeout 200 ms]
    it('httpRequest: a timeout and an unreachable host become node errors', async () => {
      const flow = await createFlow(hearth, token, {
        name: 'timeout',
        nodes: [{ type: 'trigger' }, { type: 'httpRequest', config: { url: `${api.url}/hang`, timeoutMs: 200 } }],
        edges: [{ source: 'node1', target: 'node2' }],
      });
      const execution = await runFlow(hearth, token, flow.id);
      assert.equal(execution.status, 'error');
      assert.match(entryOf(execution, 'node2').error!, /within 200 ms/);
      await hearth.request('PATCH', `${F}/flows/${flow.id}/nodes/node2`, { token, body: { configPatch: { url: 'http://127.0.0.1:1/nothing' } } });
      const unreachable = await runFlow(hearth, token, flow.id);
      assert.equal(unreachable.status, 'error');
      assert.match(entryOf(unreachable, 'node2').error!, /failed/);
    });

    //   [trigger: 2 items] --> [llmChain "Summarise: {{text}}"] --> [llmChain json]
    it('llmChain against a scripted OpenAI-compatible server: one call per item, _llm usage, credits spent per item', async () => {
      fake.reset();
      const setModel = await hearth.request('PUT', '/api/app/settings/model', { token: hearth.appSession, body: { baseUrl: fake.baseUrl, model: 'tiny' } });
      assert.equal(setModel.status, 200, setModel.text);
      fake.script(
        { reply: 'Short A', usage: { prompt_tokens: 100, completion_tokens: 10 } },
        { reply: 'Short B', usage: { prompt_tokens: 200, completion_tokens: 20 } },
        { reply: '```json\n{"mood": "happy"}\n```', usage: { prompt_tokens: 50, completion_tokens: 5 } },
        { reply: '{"mood": "calm"}', usage: { prompt_tokens: 50, completion_tokens: 5 } },
      );
      const flow = await createFlow(hearth, token, {
        name: 'llm',
        nodes: [
          { type: 'trigger', config: { sampleData: [{ text: 'first' }, { text: 'second' }] } },
          { type: 'llmChain', config: { prompt: 'Summarise: {{text}}', systemPrompt: 'Be brief.', temperature: 0.2, maxOutputTokens: 64 } },
          { type: 'llmChain', config: { model: 'other-model', prompt: 'Mood of {{text}}?', outputType: 'json' } },
        ],
        edges: [{ source: 'node1', target: 'node2' }, { source: 'node2', target: 'node3' }],
      });
      const balanceBefore = hearth.engine.credits.balance(hearth.defaultWorkspaceId);
      const execution = await runFlow(hearth, token, flow.id);
      assert.equal(execution.status, 'success', JSON.stringify(execution));
      const texts = entryOf(execution, 'node2').output!;
      assert.deepEqual(
        texts.map((i) => i.json.text),
        ['Short A', 'Short B'],
      );
      assert.deepEqual(texts[0].json._llm, { model: 'tiny', inputTokens: 100, outputTokens: 10, credits: completionCredits(100, 10) });
      assert.deepEqual(
        entryOf(execution, 'node3').output!.map((i) => i.json.data),
        [{ mood: 'happy' }, { mood: 'calm' }],
      );
      assert.equal(fake.requests.length, 4);
      assert.deepEqual(fake.requests[0].body.messages, [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Summarise: first' },
      ]);
      assert.equal(fake.requests[0].body.temperature, 0.2);
      assert.equal(fake.requests[0].body.max_tokens, 64);
      assert.equal(fake.requests[2].body.model, 'other-model');
      assert.equal(fake.requests[2].body.response_format?.type, 'json_object');
      const spent = completionCredits(100, 10) + completionCredits(200, 20) + 2 * completionCredits(50, 5);
      const balanceAfter = hearth.engine.credits.balance(hearth.defaultWorkspaceId);
      assert.ok(Math.abs(balanceBefore - balanceAfter - spent) < 1e-6, `spent ${balanceBefore - balanceAfter}, expected ${spent}`);
      const calls = hearth.engine.credits.ledger(hearth.defaultWorkspaceId, 10).filter((l) => l.call === 'flow.llmChain');
      assert.equal(calls.length, 4, 'one ledger line per item');
    });

    //   [trigger] --> [llmChain]   with a balance of 0
    it('402 when the balance is 0 and the flow holds an LLM node; flows without one still run', async () => {
      const llmFlow = await createFlow(hearth, token, { name: 'llm 402', nodes: [{ type: 'trigger' }, { type: 'llmChain' }], edges: [{ source: 'node1', target: 'node2' }] });
      const plain = await createFlow(hearth, token, fixture('linear'));
      const ws = hearth.defaultWorkspaceId;
      const before = hearth.engine.credits.balance(ws);
      hearth.engine.credits.setBalance(ws, 0);
      try {
        const refused = await hearth.request<ErrorBody>('POST', `${F}/flows/${llmFlow.id}/execute`, { token });
        assert.equal(refused.status, 402);
        assert.equal(refused.body.code, 'INSUFFICIENT_CREDITS');
        assert.equal(refused.body.details!.balance, 0);
        assert.equal((await hearth.request<Execution[]>('GET', `${F}/flows/${llmFlow.id}/executions`, { token })).body.length, 0, 'nothing queued');
        const test = await hearth.request<ErrorBody>('POST', `${F}/flows/${llmFlow.id}/nodes/node2/test`, { token, body: { inputItems: [{ json: { text: 'hi' } }] } });
        assert.equal(test.status, 402);
        assert.equal((await runFlow(hearth, token, plain.id)).status, 'success');
      } finally {
        hearth.engine.credits.setBalance(ws, before);
      }
    });

    it('403 for a read-only token, 404 for an unknown or foreign flow', async () => {
      const flow = await createFlow(hearth, token, fixture('linear'));
      const ro = await hearth.request<ErrorBody>('POST', `${F}/flows/${flow.id}/execute`, { token: reader });
      assert.equal(ro.status, 403);
      assert.equal((await hearth.request('POST', `${F}/flows/${OTHER_UUID}/execute`, { token })).status, 404);
      const stranger = hearth.token({ workspaceId: hearth.engine.identity.createWorkspace('Other').id });
      assert.equal((await hearth.request('POST', `${F}/flows/${flow.id}/execute`, { token: stranger })).status, 404);
    });
  });

  describe('GET /flows/{flowId}/executions', () => {
    it('keeps the last 20, newest first; older ones are gone', async () => {
      const flow = await createFlow(hearth, token, fixture('linear'));
      const ids: string[] = [];
      for (let i = 0; i < 22; i++) ids.push((await runFlow(hearth, token, flow.id)).id);
      const list = await hearth.request<Execution[]>('GET', `${F}/flows/${flow.id}/executions`, { token: reader });
      assert.equal(list.status, 200);
      assert.equal(list.body.length, 20);
      assert.deepEqual(
        list.body.map((e) => e.id),
        ids.slice(2).reverse(),
      );
      for (const e of list.body) {
        assert.equal(e.workflowId, flow.id);
        assert.equal(e.status, 'success');
        assert.equal(e.log.length, 3);
      }
      assert.equal((await hearth.request('GET', `${F}/flows/${flow.id}/executions/${ids[0]}`, { token })).status, 404);
      assert.equal((await hearth.request('GET', `${F}/flows/${flow.id}/executions/${ids[21]}`, { token })).status, 200);
    });

    it('404 for an unknown flow, an unknown or non-UUID execution, and another flow\'s execution', async () => {
      const a = await createFlow(hearth, token, fixture('linear'));
      const b = await createFlow(hearth, token, fixture('linear'));
      const run = await runFlow(hearth, token, a.id);
      assert.equal((await hearth.request('GET', `${F}/flows/${OTHER_UUID}/executions`, { token })).status, 404);
      assert.equal((await hearth.request('GET', `${F}/flows/${a.id}/executions/${OTHER_UUID}`, { token })).status, 404);
      assert.equal((await hearth.request('GET', `${F}/flows/${a.id}/executions/abc`, { token })).status, 404);
      assert.equal((await hearth.request('GET', `${F}/flows/${b.id}/executions/${run.id}`, { token })).status, 404);
    });
  });

  describe('POST /flows/{flowId}/nodes/{nodeId}/test', () => {
    it('runs one node on inputItems with nodeOutputs for references; writes no execution record', async () => {
      const flow = await createFlow(hearth, token, {
        name: 'test one',
        nodes: [{ type: 'trigger', config: { sampleData: { a: 1 } } }, { type: 'action', config: { fields: { line: '{{name}} via {{[node7].channel}}' } } }],
        edges: [{ source: 'node1', target: 'node2' }],
      });
      const res = await hearth.request<TestReply>('POST', `${F}/flows/${flow.id}/nodes/node2/test`, {
        token,
        body: { inputItems: [{ json: { name: 'Ada' } }, { json: { name: 'Bob' } }], nodeOutputs: { node7: [{ json: { channel: 'sms' } }] } },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'success');
      assert.ok(res.body.startedAt && res.body.finishedAt);
      assert.deepEqual(
        res.body.output.map((i) => i.json.line),
        ['Ada via sms', 'Bob via sms'],
      );
      const trigger = await hearth.request<TestReply>('POST', `${F}/flows/${flow.id}/nodes/node1/test`, { token, body: {} });
      assert.deepEqual(trigger.body.output, [{ json: { a: 1 } }]);
      assert.equal((await hearth.request<Execution[]>('GET', `${F}/flows/${flow.id}/executions`, { token })).body.length, 0);
    });

    it('an If node also returns outputs = [trueItems, falseItems]', async () => {
      const flow = await createFlow(hearth, token, fixture('if-branches'));
      const res = await hearth.request<TestReply>('POST', `${F}/flows/${flow.id}/nodes/node2/test`, {
        token,
        body: { inputItems: [{ json: { name: 'Ann', amount: 5 } }, { json: { name: 'Max', amount: '500' } }] },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.outputs!.map(names), [['Max'], ['Ann']]);
    });

    it('a failing node answers 200 with status error and the error text', async () => {
      const flow = await createFlow(hearth, token, { name: 'test fail', nodes: [{ type: 'httpRequest', config: { url: `${api.url}/fail` } }] });
      const res = await hearth.request<TestReply>('POST', `${F}/flows/${flow.id}/nodes/node1/test`, { token, body: {} });
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'error');
      assert.match(res.body.error!, /500/);
    });

    it('LLM nodes bill the test run', async () => {
      fake.reset();
      fake.script({ reply: 'pong', usage: { prompt_tokens: 1000, completion_tokens: 1000 } });
      await hearth.request('PUT', '/api/app/settings/model', { token: hearth.appSession, body: { baseUrl: fake.baseUrl, model: 'tiny' } });
      const flow = await createFlow(hearth, token, { name: 'test llm', nodes: [{ type: 'llmChain', config: { prompt: 'ping' } }] });
      const before = hearth.engine.credits.balance(hearth.defaultWorkspaceId);
      const res = await hearth.request<TestReply>('POST', `${F}/flows/${flow.id}/nodes/node1/test`, { token, body: {} });
      assert.equal(res.body.status, 'success', JSON.stringify(res.body));
      assert.equal(res.body.output[0].json.text, 'pong');
      const spent = before - hearth.engine.credits.balance(hearth.defaultWorkspaceId);
      assert.ok(Math.abs(spent - completionCredits(1000, 1000)) < 1e-6);
    });

    it('400 for malformed items; 403 read-only; 404 for flow or node', async () => {
      const flow = await createFlow(hearth, token, fixture('linear'));
      const url = `${F}/flows/${flow.id}/nodes/node2/test`;
      assert.equal((await hearth.request('POST', url, { token, body: { inputItems: [{ notJson: 1 }] } })).status, 400);
      assert.equal((await hearth.request('POST', url, { token: reader, body: {} })).status, 403);
      assert.equal((await hearth.request('POST', `${F}/flows/${flow.id}/nodes/node9/test`, { token, body: {} })).status, 404);
      assert.equal((await hearth.request('POST', `${F}/flows/${OTHER_UUID}/nodes/node1/test`, { token, body: {} })).status, 404);
    });
  });

  describe('PUT graph during a run', () => {
    //   [trigger] --> [GET /slow]   and the graph is replaced while it runs
    it('the run finishes, but its results are not written onto the replaced nodes (run state stays reset)', async () => {
      const graph = { nodes: [{ type: 'trigger' }, { type: 'httpRequest', config: { url: `${api.url}/slow` } }], edges: [{ source: 'node1', target: 'node2' }] };
      const flow = await createFlow(hearth, token, { name: 'replaced mid-run', ...graph });
      const started = await hearth.request<{ poll: string }>('POST', `${F}/flows/${flow.id}/execute`, { token });
      assert.equal((await hearth.request('PUT', `${F}/flows/${flow.id}/graph`, { token, body: graph })).status, 200);
      const execution = await waitForExecution(hearth, token, started.body.poll);
      assert.equal(execution.status, 'success');
      const after = await hearth.request<{ nodes: Array<{ lastRun: unknown }> }>('GET', `${F}/flows/${flow.id}/graph?includeOutput=1`, { token });
      assert.deepEqual(
        after.body.nodes.map((n) => n.lastRun),
        [null, null],
      );
    });
  });

  describe('runs cut off by a restart or a crash', () => {
    //   [trigger] --> [GET /hang]   then Hearth restarts mid-run
    it('a restart during a run leaves it error, never running', async () => {
      const flow = await createFlow(hearth, token, { name: 'restart', nodes: [{ type: 'trigger' }, { type: 'httpRequest', config: { url: `${api.url}/hang` } }], edges: [{ source: 'node1', target: 'node2' }] });
      const started = await hearth.request<{ poll: string }>('POST', `${F}/flows/${flow.id}/execute`, { token });
      assert.equal((await hearth.request<Execution>('GET', started.body.poll, { token })).body.status, 'running');
      await hearth.restart();
      const after = await hearth.request<Execution>('GET', started.body.poll, { token });
      assert.equal(after.body.status, 'error');
      assert.ok(after.body.finishedAt);
      assert.match(after.body.error!, /stopped before this run finished/);
    });

    //   [trigger] --> [GET /hang]   in a `hearth serve` process that is killed with SIGKILL
    it('a crash (SIGKILL of hearth serve) mid-run is marked error when Hearth starts again', async () => {
      const crashHearth = await TestHearth.start();
      const dataDir = crashHearth.dataDir;
      const crashToken = crashHearth.token();
      await crashHearth.stop({ keepData: true });
      const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'hearth.js'), '--data-dir', dataDir, 'serve', '--port', '0', '--json'], { stdio: ['ignore', 'pipe', 'ignore'] });
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let out = '';
          child.stdout.on('data', (c: Buffer) => {
            out += c.toString();
            if (out.includes('\n')) resolve((JSON.parse(out.split('\n')[0]) as { url: string }).url);
          });
          child.once('exit', (code) => reject(new Error(`hearth serve exited ${code}`)));
        });
        const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, string> }> => {
          const res = await fetch(url + path, { method, headers: { authorization: `Bearer ${crashToken}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
          return { status: res.status, body: (await res.json()) as Record<string, string> };
        };
        const flow = await call('POST', `${F}/flows`, { name: 'crash', nodes: [{ type: 'trigger' }, { type: 'httpRequest', config: { url: `${api.url}/hang` } }], edges: [{ source: 'node1', target: 'node2' }] });
        assert.equal(flow.status, 201);
        const started = await call('POST', `${F}/flows/${flow.body.id}/execute`);
        assert.equal(started.status, 202);
        assert.equal((await call('GET', started.body.poll)).body.status, 'running');
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));
        const revived = await TestHearth.start({ dataDir });
        try {
          const execution = await revived.request<Execution>('GET', started.body.poll, { token: crashToken });
          assert.equal(execution.body.status, 'error');
          assert.match(execution.body.error!, /crash or restart/);
        } finally {
          await revived.stop();
        }
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    });
  });
});
