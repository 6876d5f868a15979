// The action node's knowledge operations against the real knowledge service, and ask on a scripted model.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeLlmServer } from '../helpers/fake-llm-server.ts';
import { createFlow, entryOf, runFlow } from '../helpers/flows.ts';
import { TestHearth } from '../helpers/hearth.ts';
import { createBase, search } from '../helpers/knowledge.ts';

describe('workflows: knowledge operations of the action node', () => {
  let hearth: TestHearth;
  let fake: FakeLlmServer;
  let token: string;
  let kb: string;

  before(async () => {
    hearth = await TestHearth.start();
    fake = await FakeLlmServer.start();
    token = hearth.token();
    kb = await createBase(hearth, token, 'Support');
    const setModel = await hearth.request('PUT', '/api/app/settings/model', { token: hearth.appSession, body: { baseUrl: fake.baseUrl, model: 'tiny' } });
    assert.equal(setModel.status, 200, setModel.text);
  });
  after(async () => {
    await hearth.stop();
    await fake.close();
  });

  //   [trigger {subject, question, answer}] --> [add entry] --> [search "{{question}}"] --> [ask "how long is delivery?"]
  it('adds an entry, finds it, and answers from it; each step adds its result to the item', async () => {
    fake.script({ reply: 'Delivery takes 3 to 5 working days.', usage: { prompt_tokens: 120, completion_tokens: 9 } });
    const flow = await createFlow(hearth, token, {
      name: 'knowledge',
      nodes: [
        { type: 'trigger', config: { sampleData: { subject: 'Shipping', question: 'How long does delivery take?', answer: 'Delivery takes 3 to 5 working days within the EU.' } } },
        { type: 'action', config: { operation: 'knowledgeAddEntry', kbId: kb } },
        { type: 'action', config: { operation: 'knowledgeSearch', kbId: kb, query: '{{question}}', topK: 3 } },
        { type: 'action', config: { operation: 'knowledgeAsk', kbId: kb, query: 'how long is delivery?' } },
      ],
      edges: [{ source: 'node1', target: 'node2' }, { source: 'node2', target: 'node3' }, { source: 'node3', target: 'node4' }],
    });
    const execution = await runFlow(hearth, token, flow.id, 60_000);
    assert.equal(execution.status, 'success', JSON.stringify(execution));
    const added = entryOf(execution, 'node2').output![0].json.entry as { id: string; status: string; conflicts: number };
    assert.equal(added.status, 'active');
    assert.equal(added.conflicts, 0);
    const found = await search(hearth, token, kb, 'delivery time');
    assert.equal(found[0].id, added.id, 'the entry the flow added is searchable');
    const hits = entryOf(execution, 'node3').output![0].json.hits as Array<{ id: string }>;
    assert.equal(hits[0].id, added.id);
    const asked = entryOf(execution, 'node4').output![0].json;
    assert.equal(asked.answer, 'Delivery takes 3 to 5 working days.');
    assert.equal((asked._llm as { model: string }).model, 'tiny');
    assert.equal(fake.requests.length, 1);
  });

  //   [trigger] --> [add entry]   started by a token without knowledge:write
  it('a knowledge operation needs the matching scope on the token that started the run', async () => {
    const flowsOnly = hearth.token({ resources: ['workflows'] });
    const flow = await createFlow(hearth, flowsOnly, {
      name: 'no scope',
      nodes: [{ type: 'trigger', config: { sampleData: { subject: 'X', question: 'Q?', answer: 'A.' } } }, { type: 'action', config: { operation: 'knowledgeAddEntry', kbId: kb } }],
      edges: [{ source: 'node1', target: 'node2' }],
    });
    const execution = await runFlow(hearth, flowsOnly, flow.id);
    assert.equal(execution.status, 'error');
    assert.match(entryOf(execution, 'node2').error!, /knowledge:write/);
  });

  //   [trigger {question: ""}] --> [add entry]   and   [trigger] --> [search an unknown base]
  it('invalid entries and unknown bases become node errors', async () => {
    const empty = await createFlow(hearth, token, {
      name: 'empty',
      nodes: [{ type: 'trigger', config: { sampleData: { subject: 'X', question: '', answer: 'A.' } } }, { type: 'action', config: { operation: 'knowledgeAddEntry', kbId: kb } }],
      edges: [{ source: 'node1', target: 'node2' }],
    });
    const execution = await runFlow(hearth, token, empty.id);
    assert.equal(execution.status, 'error');
    assert.match(entryOf(execution, 'node2').error!, /question must be 1-500/);
    const unknown = await createFlow(hearth, token, {
      name: 'unknown base',
      nodes: [{ type: 'trigger' }, { type: 'action', config: { operation: 'knowledgeSearch', kbId: '0b9f4a52-6a43-4d2e-9c1f-2f3a4b5c6d7e' } }],
      edges: [{ source: 'node1', target: 'node2' }],
    });
    const missing = await runFlow(hearth, token, unknown.id);
    assert.equal(missing.status, 'error');
    assert.match(entryOf(missing, 'node2').error!, /not found/);
  });
});
