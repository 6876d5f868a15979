// Messaging (contract 3.2, 6.2): messagingTrigger fires only on active flows; the inbound entry point,
// the outbox, webhook delivery with retries, `hearth message send`; and the change feed (SSE).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Execution, FlowSummary } from '../../src/main/engine/flows/flows.types.ts';
import type { OutboxMessage } from '../../src/main/engine/flows/outbox.repository.ts';
import { createFlow, entryOf, F, json, LocalServer, openFeed, runFlow, waitForExecution, type ErrorBody } from '../helpers/flows.ts';
import { runCli, runCliJson, TestHearth } from '../helpers/hearth.ts';

interface InboundReply {
  received: boolean;
  count: number;
  fired: Array<{ flowId: string; executionId: string; poll: string }>;
  skipped: Array<{ flowId: string; reason: string }>;
}

//   [messagingTrigger] --> [sendMessaging "Echo: {{text}}" to {{from}}]
const echoFlow = (name: string, options: { active?: boolean; channel?: string; webhookUrl?: string } = {}) => ({
  name,
  active: options.active ?? true,
  nodes: [
    { type: 'messagingTrigger', config: { channel: options.channel ?? '' } },
    { type: 'sendMessaging', config: { text: 'Echo: {{text}}', ...(options.webhookUrl ? { webhookUrl: options.webhookUrl } : {}) } },
  ],
  edges: [{ source: 'node1', target: 'node2' }],
});

describe('workflows API: messaging', () => {
  let hearth: TestHearth;
  let token: string;
  let reader: string;
  let webhook: LocalServer;
  let failuresBeforeSuccess = 0;

  before(async () => {
    hearth = await TestHearth.start();
    // Each user gets their own flows; a fresh user keeps these tests' inbound messages apart.
    token = hearth.token({ userId: hearth.engine.identity.createUser(hearth.defaultWorkspaceId, 'Messaging').id });
    reader = hearth.token({ access: 'read' });
    webhook = await LocalServer.start((req, res) => {
      if (req.url === '/bad-request') return json(res, 400, { error: 'no' });
      if (req.url === '/always-down') return json(res, 503, { error: 'down' });
      if (failuresBeforeSuccess > 0) {
        failuresBeforeSuccess--;
        return json(res, 503, { error: 'try later' });
      }
      return json(res, 200, { ok: true });
    });
  });
  after(async () => {
    await hearth.stop();
    await webhook.close();
  });

  const inbound = (body: unknown, as = token) => hearth.request<InboundReply>('POST', `${F}/messaging/inbound`, { token: as, body });
  const outbox = async (flowId: string): Promise<OutboxMessage[]> => {
    const res = await hearth.request<{ total: number; items: OutboxMessage[] }>('GET', `${F}/messaging/outbox?flowId=${flowId}`, { token });
    assert.equal(res.status, 200);
    return res.body.items;
  };

  it('an incoming message fires an active flow: the trigger emits { channel, from, text }, the reply lands in the outbox', async () => {
    const flow = await createFlow(hearth, token, echoFlow('active echo'));
    const res = await inbound({ from: '+15550123', text: 'Are you open on Sunday?' });
    assert.equal(res.status, 202);
    const fired = res.body.fired.find((f) => f.flowId === flow.id)!;
    assert.ok(fired, JSON.stringify(res.body));
    const execution = await waitForExecution(hearth, token, fired.poll);
    assert.equal(execution.status, 'success', JSON.stringify(execution));
    assert.equal(execution.trigger, 'messaging');
    const item = entryOf(execution, 'node1').output![0].json;
    assert.equal(item.channel, 'local');
    assert.equal(item.from, '+15550123');
    assert.equal(item.text, 'Are you open on Sunday?');
    const [sent] = await outbox(flow.id);
    assert.equal(sent.recipient, '+15550123');
    assert.equal(sent.text, 'Echo: Are you open on Sunday?');
    assert.equal(sent.delivery, 'outbox');
    assert.equal(sent.executionId, execution.id);
  });

  it('an inactive flow does not fire; once activated it does; deactivated it stops again', async () => {
    const flow = await createFlow(hearth, token, echoFlow('inactive echo', { active: false }));
    const quiet = await inbound({ from: 'ann', text: 'hello?' });
    assert.equal(quiet.status, 202);
    assert.ok(!quiet.body.fired.some((f) => f.flowId === flow.id));
    assert.equal((await hearth.request<Execution[]>('GET', `${F}/flows/${flow.id}/executions`, { token })).body.length, 0);
    await hearth.request('PATCH', `${F}/flows/${flow.id}`, { token, body: { active: true } });
    const loud = await inbound({ from: 'ann', text: 'hello!' });
    const fired = loud.body.fired.find((f) => f.flowId === flow.id);
    assert.ok(fired);
    assert.equal((await waitForExecution(hearth, token, fired.poll)).status, 'success');
    await hearth.request('PATCH', `${F}/flows/${flow.id}`, { token, body: { active: false } });
    assert.ok(!(await inbound({ from: 'ann', text: 'again' })).body.fired.some((f) => f.flowId === flow.id));
  });

  it('a trigger with a channel fires only for that channel; manual runs emit the sample message whatever active says', async () => {
    const flow = await createFlow(hearth, token, echoFlow('whatsapp only', { channel: 'whatsapp' }));
    assert.ok(!(await inbound({ channel: 'sms', from: 'x', text: 'y' })).body.fired.some((f) => f.flowId === flow.id));
    assert.ok((await inbound({ channel: 'whatsapp', from: 'x', text: 'y' })).body.fired.some((f) => f.flowId === flow.id));
    await hearth.request('PATCH', `${F}/flows/${flow.id}`, { token, body: { active: false } });
    const manual = await runFlow(hearth, token, flow.id);
    assert.equal(manual.status, 'success');
    assert.equal(entryOf(manual, 'node1').output![0].json.text, 'Hello! What are your opening hours?');
  });

  it('inbound: 400 without from or text, 403 for a read-only token, 401 without a token', async () => {
    const missing = await inbound({ text: 'no sender' });
    assert.equal(missing.status, 400);
    assert.ok('from' in ((missing.body as unknown as ErrorBody).details?.fieldErrors ?? {}));
    assert.equal((await inbound({ from: 'a' })).status, 400);
    assert.equal((await inbound({ from: 'a', text: 'b' }, reader)).status, 403);
    assert.equal((await hearth.request('POST', `${F}/messaging/inbound`, { body: { from: 'a', text: 'b' } })).status, 401);
  });

  it('sendMessaging POSTs to the webhook and retries 5xx until it is delivered', async () => {
    failuresBeforeSuccess = 2;
    const flow = await createFlow(hearth, token, { ...echoFlow('webhook', { active: false, webhookUrl: `${webhook.url}/hook` }) });
    const before = webhook.requests.length;
    const execution = await runFlow(hearth, token, flow.id);
    assert.equal(execution.status, 'success', JSON.stringify(execution));
    const posted = webhook.requests.slice(before);
    assert.equal(posted.length, 3, 'two failures, then delivered');
    const payload = JSON.parse(posted[2].body) as Record<string, string>;
    assert.equal(payload.recipient, '+15550100');
    assert.equal(payload.text, 'Echo: Hello! What are your opening hours?');
    assert.equal(payload.flowId, flow.id);
    const [sent] = await outbox(flow.id);
    assert.equal(sent.delivery, 'delivered');
    assert.equal(sent.attempts, 3);
  });

  it('a webhook that keeps failing fails the node (the message stays in the outbox); a 4xx is not retried', async () => {
    const down = await createFlow(hearth, token, echoFlow('down', { active: false, webhookUrl: `${webhook.url}/always-down` }));
    const execution = await runFlow(hearth, token, down.id);
    assert.equal(execution.status, 'error');
    assert.match(entryOf(execution, 'node2').error!, /after 3 attempts/);
    assert.equal((await outbox(down.id))[0].delivery, 'failed');
    const refused = await createFlow(hearth, token, echoFlow('refused', { active: false, webhookUrl: `${webhook.url}/bad-request` }));
    const once = await runFlow(hearth, token, refused.id);
    assert.equal(once.status, 'error');
    assert.equal((await outbox(refused.id))[0].attempts, 1);
  });

  it('the workspace webhook setting is used when the node has none; GET/PUT /messaging/settings validate it', async () => {
    assert.equal((await hearth.request('PUT', `${F}/messaging/settings`, { token, body: { webhookUrl: 'ftp://nope' } })).status, 400);
    assert.equal((await hearth.request('PUT', `${F}/messaging/settings`, { token: reader, body: { webhookUrl: null } })).status, 403);
    const set = await hearth.request('PUT', `${F}/messaging/settings`, { token, body: { webhookUrl: `${webhook.url}/workspace-hook` } });
    assert.equal(set.status, 200);
    assert.deepEqual((await hearth.request('GET', `${F}/messaging/settings`, { token: reader })).body, { webhookUrl: `${webhook.url}/workspace-hook` });
    try {
      const flow = await createFlow(hearth, token, echoFlow('workspace hook', { active: false }));
      assert.equal((await runFlow(hearth, token, flow.id)).status, 'success');
      assert.equal(webhook.requests.at(-1)!.url, '/workspace-hook');
      assert.equal((await outbox(flow.id))[0].delivery, 'delivered');
    } finally {
      await hearth.request('PUT', `${F}/messaging/settings`, { token, body: { webhookUrl: null } });
    }
  });

  it('`hearth message send --from --text --json` fires the active flows and reports each run', async () => {
    // The CLI acts as the workspace's first user; this flow belongs to that user.
    const owner = hearth.token();
    const flow = await createFlow(hearth, owner, echoFlow('cli echo'));
    const result = runCliJson<{ count: number; runs: Array<{ flowId: string; executionId: string; status: string }> }>(hearth.dataDir, ['message', 'send', '--from', '+4470000', '--text', 'from the CLI']);
    const run = result.runs.find((r) => r.flowId === flow.id);
    assert.ok(run, JSON.stringify(result));
    assert.equal(run.status, 'success');
    const execution = await hearth.request<Execution>('GET', `${F}/flows/${flow.id}/executions/${run.executionId}`, { token: owner });
    assert.equal(execution.body.status, 'success');
    const sent = await hearth.request<{ items: OutboxMessage[] }>('GET', `${F}/messaging/outbox?flowId=${flow.id}`, { token: owner });
    assert.equal(sent.body.items[0].text, 'Echo: from the CLI');
    assert.equal(sent.body.items[0].recipient, '+4470000');
    // Readable output, and a channel no trigger listens on fires nothing.
    const human = runCli(hearth.dataDir, ['message', 'send', '--from', 'x', '--text', 'y']);
    assert.equal(human.status, 0, human.stderr);
    assert.match(human.stdout, new RegExp(`${flow.id}\\s+\\S+\\s+success`));
    await hearth.request('PATCH', `${F}/flows/${flow.id}/nodes/node1`, { token: owner, body: { configPatch: { channel: 'telegram' } } });
    const none = runCliJson<{ count: number; runs: Array<{ flowId: string }> }>(hearth.dataDir, ['message', 'send', '--from', 'x', '--text', 'y', '--channel', 'sms']);
    assert.ok(!none.runs.some((r) => r.flowId === flow.id));
  });
});

describe('workflows API: change feed (server-sent events)', () => {
  let hearth: TestHearth;
  let token: string;

  before(async () => {
    hearth = await TestHearth.start();
    token = hearth.token();
  });
  after(() => hearth.stop());

  it('an open canvas receives API edits and run progress of its flow within seconds', async () => {
    const flow = await createFlow(hearth, token, { name: 'live', nodes: [{ type: 'trigger' }, { type: 'action' }], edges: [{ source: 'node1', target: 'node2' }] });
    const feed = await openFeed(`${hearth.url}${F}/flows/${flow.id}/events`, token);
    try {
      assert.equal(feed.status, 200);
      await feed.next('ready');
      await hearth.request('PATCH', `${F}/flows/${flow.id}/nodes/node2`, { token, body: { label: 'Renamed elsewhere' } });
      const updated = await feed.next('node.updated');
      assert.equal(updated.flowId, flow.id);
      assert.equal((updated.node as { label: string }).label, 'Renamed elsewhere');
      await hearth.request('POST', `${F}/flows/${flow.id}/nodes`, { token, body: { type: 'output', connectFrom: 'node2' } });
      const created = await feed.next('node.created');
      assert.equal((created.node as { id: string }).id, 'node3');
      assert.deepEqual(
        (created.edges as Array<{ id: string }>).map((e) => e.id),
        ['e-node2-node3'],
      );
      await hearth.request('DELETE', `${F}/flows/${flow.id}/edges/e-node2-node3`, { token });
      assert.deepEqual((await feed.next('edge.deleted')).edgeIds, ['e-node2-node3']);
      await hearth.request('PUT', `${F}/flows/${flow.id}/graph`, { token, body: { nodes: [{ type: 'trigger' }], edges: [] } });
      assert.equal(((await feed.next('graph.replaced')).nodes as unknown[]).length, 1);
      await hearth.request('PATCH', `${F}/flows/${flow.id}`, { token, body: { name: 'Live 2' } });
      assert.equal(((await feed.next('flow.updated')).flow as FlowSummary).name, 'Live 2');
      const run = await hearth.request<{ executionId: string }>('POST', `${F}/flows/${flow.id}/execute`, { token });
      assert.equal((await feed.next('execution.started')).executionId, run.body.executionId);
      const finished = await feed.next('execution.finished');
      assert.equal(finished.status, 'success');
    } finally {
      feed.close();
    }
  });

  it('GET /events carries every flow of the caller (new flows too), and nothing of other users', async () => {
    const feed = await openFeed(`${hearth.url}${F}/events`, token);
    const other = hearth.token({ userId: hearth.engine.identity.createUser(hearth.defaultWorkspaceId, 'Other').id });
    const otherFeed = await openFeed(`${hearth.url}${F}/events`, other);
    try {
      await feed.next('ready');
      await otherFeed.next('ready');
      const flow = await createFlow(hearth, token, { name: 'announced' });
      const created = await feed.next('flow.created');
      assert.equal(created.flowId, flow.id);
      await assert.rejects(otherFeed.next('flow.created', 300), /No flow.created event/);
    } finally {
      feed.close();
      otherFeed.close();
    }
  });

  it('404 for an unknown flow, 403 without workflows:read, 401 without a token; the server still stops with a stream open', async () => {
    const unknown = await hearth.request('GET', `${F}/flows/0b9f4a52-6a43-4d2e-9c1f-2f3a4b5c6d7e/events`, { token });
    assert.equal(unknown.status, 404);
    assert.equal((await hearth.request('GET', `${F}/events`, { token: hearth.token({ resources: ['knowledge'] }) })).status, 403);
    assert.equal((await hearth.request('GET', `${F}/events`)).status, 401);
    const flow = await createFlow(hearth, token, { name: 'open at restart' });
    const feed = await openFeed(`${hearth.url}${F}/flows/${flow.id}/events`, token);
    await feed.next('ready');
    await hearth.restart(); // would hang if the open stream kept the server from closing
    feed.close();
    assert.equal((await hearth.request('GET', `${F}/flows/${flow.id}`, { token })).status, 200);
  });
});
