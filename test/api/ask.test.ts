import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ASK_SYSTEM_PROMPT, DOES_NOT_KNOW, NO_ANSWER_MARKER } from '../../src/main/engine/ask/ask.prompt.ts';
import { MODEL_LABEL_BEST_ENTRY, MODEL_LABEL_NO_MATCH } from '../../src/main/engine/ask/ask.service.ts';
import { roundCredits } from '../../src/main/engine/credits/credits.service.ts';
import type { LedgerEntry } from '../../src/main/engine/credits/credits.repository.ts';
import { completionCredits, embeddingCredits } from '../../src/main/engine/credits/pricing.ts';
import { estimateInputTokens, estimateTokens } from '../../src/main/engine/llm/token-estimate.ts';
import { FakeLlmServer } from '../helpers/fake-llm-server.ts';
import { TestHearth } from '../helpers/hearth.ts';
import { addEntry, assertFieldError, assertStatus, createBase, K, OTHER_UUID, type EntryBody, type HitBody } from '../helpers/knowledge.ts';

interface AskBody {
  answer: string | null;
  hits: HitBody[];
  usage: { model: string; inputTokens: number; outputTokens: number; credits: number };
  note?: string;
}

interface UnansweredBody {
  query: string;
  count: number;
  lastAt: string;
}

const ENTRIES = [
  { subject: 'Accounts', question: 'How do I reset my password?', answer: 'Open Settings, choose Security and press Reset password. A link arrives by email within a minute.' },
  { subject: 'Billing', question: 'How can I get a refund?', answer: 'Refunds are issued within 14 days from the Billing page, to the card that paid.' },
  { subject: 'Shipping', question: 'How long does delivery take?', answer: 'Delivery takes 3 to 5 working days within the EU and up to 10 elsewhere.' },
  { subject: 'Accounts', question: 'How do I change my email address?', answer: 'Go to Settings, then Profile, and edit the email field; we confirm the new address by mail.' },
];
const PASSWORD_QUERY = 'I forgot my password, how do I reset it?';
const NONSENSE_QUERY = 'zebra quantum marmalade orbit';

describe('POST /bases/{kbId}/ask against a scripted OpenAI-compatible server', () => {
  let hearth: TestHearth;
  let fake: FakeLlmServer;
  let token: string;
  let kb: string;
  let entries: EntryBody[];
  const ws = (): string => hearth.defaultWorkspaceId;

  const ask = (body: Record<string, unknown>, as = token) => hearth.request<AskBody>('POST', `${K}/bases/${kb}/ask`, { token: as, body });
  const ledger = (): LedgerEntry[] => hearth.engine.credits.ledger(ws(), 500);
  const unanswered = async (): Promise<UnansweredBody[]> => (await hearth.request<UnansweredBody[]>('GET', `${K}/bases/${kb}/unanswered`, { token })).body;
  const searchFor = async (query: string, topK = 6) =>
    (await hearth.request<{ hits: HitBody[]; embeddingTokens: number }>('POST', `${K}/bases/${kb}/search`, { token, body: { query, topK } })).body;
  const setModel = (body: Record<string, unknown>) => hearth.request('PUT', '/api/app/settings/model', { token: hearth.appSession, body: { baseUrl: fake.baseUrl, model: 'tiny', ...body } });
  const entryById = async (id: string): Promise<EntryBody> => {
    const list = await hearth.request<{ items: EntryBody[] }>('GET', `${K}/bases/${kb}/entries?status=all&limit=500`, { token });
    return list.body.items.find((e) => e.id === id)!;
  };

  before(async () => {
    fake = await FakeLlmServer.start();
    hearth = await TestHearth.start();
    token = hearth.token();
    kb = await createBase(hearth, token, 'Support');
    entries = [];
    for (const entry of ENTRIES) entries.push(await addEntry(hearth, token, kb, entry));
  });
  beforeEach(async () => {
    fake.reset();
    hearth.engine.credits.setBalance(ws(), 1000);
    assert.equal((await setModel({ stream: false, timeoutMs: 5000 })).status, 200);
  });
  after(async () => {
    await hearth.stop();
    await fake.close();
  });

  it('answers from the hits only, citing them, with exact usage and credits on one ledger row', async () => {
    const search = await searchFor(PASSWORD_QUERY);
    assert.equal(search.hits[0].id, entries[0].id);
    // A threshold between the best hit and the rest, so some entries are retrieved but must stay out of the prompt.
    const minScore = (search.hits[0].score + search.hits[1].score) / 2;
    fake.script({ reply: 'Open Settings, choose Security and press Reset password [1].', usage: { prompt_tokens: 187, completion_tokens: 14 }, model: 'tiny:1b' });
    const balanceBefore = hearth.engine.credits.balance(ws());
    const rowsBefore = ledger().length;

    const res = await ask({ query: PASSWORD_QUERY, minScore });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.answer, 'Open Settings, choose Security and press Reset password [1].');
    assert.deepEqual(res.body.hits.map((h) => h.id), [entries[0].id]);
    assert.deepEqual(Object.keys(res.body.hits[0]).sort(), ['answer', 'id', 'question', 'score', 'subject', 'vectorScore']);
    assert.equal(res.body.note, undefined);

    // The prompt: our instructions, then exactly the hits, then the question. Nothing else from the base.
    assert.equal(fake.requests.length, 1);
    const [system, user] = fake.requests[0].body.messages;
    assert.deepEqual(system, { role: 'system', content: ASK_SYSTEM_PROMPT });
    assert.match(system.content, /only what those entries state/);
    assert.match(system.content, /Cite each entry/);
    assert.match(system.content, new RegExp(NO_ANSWER_MARKER));
    assert.equal(user.content, `Entries:\n\n[1] Subject: Accounts\nQuestion: ${ENTRIES[0].question}\nAnswer: ${ENTRIES[0].answer}\n\nQuestion: ${PASSWORD_QUERY}`);
    for (const other of ENTRIES.slice(1)) assert.ok(!JSON.stringify(fake.requests[0].body).includes(other.answer), `${other.question} stayed out`);

    const credits = roundCredits(completionCredits(187, 14) + embeddingCredits(search.embeddingTokens));
    assert.deepEqual(res.body.usage, { model: 'tiny:1b', inputTokens: 187, outputTokens: 14, credits });
    assert.ok(credits > 0);
    const rows = ledger();
    assert.equal(rows.length, rowsBefore + 1);
    const row = rows[0];
    assert.deepEqual(
      { kind: row.kind, call: row.call, model: row.model, inputTokens: row.inputTokens, outputTokens: row.outputTokens, embeddingTokens: row.embeddingTokens, credits: row.credits },
      { kind: 'spend', call: 'ask', model: 'tiny:1b', inputTokens: 187, outputTokens: 14, embeddingTokens: search.embeddingTokens, credits },
    );
    assert.equal(hearth.engine.credits.balance(ws()), roundCredits(balanceBefore - credits));

    const used = await entryById(entries[0].id);
    assert.equal(used.hitCount, entries[0].hitCount + 1);
    assert.ok(used.lastHitAt);
    assert.equal((await entryById(entries[1].id)).hitCount, 0, 'an entry that was not used gets no hit');
  });

  it('reads a streamed reply and, without server usage, bills the local estimate', async () => {
    assert.equal((await setModel({ stream: true })).status, 200);
    const reply = 'Refunds come within 14 days from the Billing page [1].';
    fake.script({ reply, usage: null, chunkSize: 5 });
    const res = await ask({ query: 'Can I get my money back?', minScore: 0 , topK: 2 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.answer, reply);
    assert.equal(fake.requests[0].body.stream, true);
    assert.deepEqual(fake.requests[0].body.stream_options, { include_usage: true });
    const inputTokens = estimateInputTokens(fake.requests[0].body.messages.map((m) => ({ role: m.role as 'system' | 'user', content: m.content })));
    const outputTokens = estimateTokens(reply);
    const { embeddingTokens } = await searchFor('Can I get my money back?', 2);
    assert.deepEqual(res.body.usage, { model: 'tiny', inputTokens, outputTokens, credits: roundCredits(completionCredits(inputTokens, outputTokens) + embeddingCredits(embeddingTokens)) });
    assert.equal(res.body.hits.length, 2, 'topK bounds the hits');
  });

  it('with no hit above minScore: answer null, no hits, a note, no model call, and the query logged (repeats counted)', async () => {
    await hearth.request('DELETE', `${K}/bases/${kb}/unanswered`, { token });
    const search = await searchFor(NONSENSE_QUERY);
    assert.ok(search.hits.every((h) => h.score < 0.35), `nonsense scores ${search.hits.map((h) => h.score).join(', ')}`);
    const rowsBefore = ledger().length;

    const first = await ask({ query: NONSENSE_QUERY });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.answer, null);
    assert.deepEqual(first.body.hits, []);
    assert.match(first.body.note ?? '', /unanswered/);
    const credits = roundCredits(embeddingCredits(search.embeddingTokens));
    assert.deepEqual(first.body.usage, { model: MODEL_LABEL_NO_MATCH, inputTokens: 0, outputTokens: 0, credits });
    assert.equal(fake.requests.length, 0, 'no model call');
    assert.equal(ledger().length, rowsBefore + 1, 'the question embedding is billed');
    assert.equal(ledger()[0].embeddingTokens, search.embeddingTokens);

    await ask({ query: NONSENSE_QUERY });
    await ask({ query: `  ${NONSENSE_QUERY.toUpperCase()} ` });
    await ask({ query: PASSWORD_QUERY, minScore: 1 });
    const list = await unanswered();
    assert.deepEqual(list.map((u) => [u.query, u.count]), [[NONSENSE_QUERY.toUpperCase(), 3], [PASSWORD_QUERY, 1]], 'most frequent first; case and spacing fold together');
    assert.ok(!Number.isNaN(Date.parse(list[0].lastAt)));
    assert.deepEqual(Object.keys(list[0]).sort(), ['count', 'lastAt', 'query']);
    assert.equal(fake.requests.length, 0);

    const removed = await hearth.request('DELETE', `${K}/bases/${kb}/unanswered?query=${encodeURIComponent(PASSWORD_QUERY)}`, { token });
    assert.deepEqual(removed.body, { ok: true });
    assert.deepEqual((await unanswered()).map((u) => u.query), [NONSENSE_QUERY.toUpperCase()]);
    assertFieldError(await hearth.request('DELETE', `${K}/bases/${kb}/unanswered?query=`, { token }), 'query');
    assert.equal((await unanswered()).length, 1, 'an empty query clears nothing');
    const cleared = await hearth.request('DELETE', `${K}/bases/${kb}/unanswered`, { token });
    assert.deepEqual(cleared.body, { ok: true });
    assert.deepEqual(await unanswered(), []);
  });

  it('logs the question as unanswered when the model says the hits do not answer it', async () => {
    await hearth.request('DELETE', `${K}/bases/${kb}/unanswered`, { token });
    fake.script({ reply: NO_ANSWER_MARKER, usage: { prompt_tokens: 90, completion_tokens: 5 } });
    const res = await ask({ query: 'Do you deliver on Sundays?', minScore: 0 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.answer, DOES_NOT_KNOW);
    assert.ok(res.body.hits.length > 0);
    assert.match(res.body.note ?? '', /unanswered/);
    assert.deepEqual((await unanswered()).map((u) => [u.query, u.count]), [['Do you deliver on Sundays?', 1]]);
    assert.equal(ledger()[0].inputTokens, 90, 'the model call is billed all the same');
  });

  it('at a zero balance answers 402 with details.balance and changes nothing', async () => {
    hearth.engine.credits.setBalance(ws(), 0);
    await hearth.request('DELETE', `${K}/bases/${kb}/unanswered`, { token });
    const rowsBefore = ledger().length;
    const hitsBefore = (await entryById(entries[0].id)).hitCount;
    for (const query of [PASSWORD_QUERY, NONSENSE_QUERY]) {
      const res = await ask({ query });
      assertStatus(res, 402, 'INSUFFICIENT_CREDITS');
      assert.equal((res.body as unknown as { details: { balance: number } }).details.balance, 0);
    }
    assert.equal(fake.requests.length, 0, 'no model request');
    assert.equal(ledger().length, rowsBefore, 'no ledger row');
    assert.deepEqual(await unanswered(), [], 'no unanswered row');
    assert.equal((await entryById(entries[0].id)).hitCount, hitsBefore, 'no hit recorded');
    assert.equal(hearth.engine.credits.balance(ws()), 0);
  });

  it('without a configured model answers with the best entry, spending only the embedding', async () => {
    assert.equal((await hearth.request('DELETE', '/api/app/settings/model', { token: hearth.appSession })).status, 200);
    const search = await searchFor(PASSWORD_QUERY);
    const balanceBefore = hearth.engine.credits.balance(ws());
    const res = await ask({ query: PASSWORD_QUERY });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.answer, ENTRIES[0].answer);
    assert.equal(res.body.hits[0].id, entries[0].id);
    assert.ok(res.body.hits.every((h) => h.score >= 0.35));
    const credits = roundCredits(embeddingCredits(search.embeddingTokens));
    assert.deepEqual(res.body.usage, { model: MODEL_LABEL_BEST_ENTRY, inputTokens: 0, outputTokens: 0, credits });
    assert.match(res.body.note ?? '', /hearth model set/);
    assert.equal(fake.requests.length, 0);
    assert.equal(hearth.engine.credits.balance(ws()), roundCredits(balanceBefore - credits));
    assert.equal(ledger()[0].model, null);
  });

  it('validates query, topK (1-20) and minScore (0-1) with fieldErrors', async () => {
    for (const [body, field] of [
      [{}, 'query'],
      [{ query: '   ' }, 'query'],
      [{ query: 'x'.repeat(2001) }, 'query'],
      [{ query: 'hi', topK: 0 }, 'topK'],
      [{ query: 'hi', topK: 21 }, 'topK'],
      [{ query: 'hi', topK: 2.5 }, 'topK'],
      [{ query: 'hi', topK: '6' }, 'topK'],
      [{ query: 'hi', minScore: -0.01 }, 'minScore'],
      [{ query: 'hi', minScore: 1.01 }, 'minScore'],
    ] as const) {
      assertFieldError(await ask(body), field);
    }
    assert.equal(fake.requests.length, 0);
    for (const [topK, status] of [[1, 200], [20, 200]] as const) assert.equal((await ask({ query: PASSWORD_QUERY, topK })).status, status);
  });

  it('is a read: a read-only token may ask; unknown and foreign bases answer 404', async () => {
    fake.script({ reply: 'Use Settings [1].', usage: { prompt_tokens: 10, completion_tokens: 3 } });
    const reader = hearth.token({ access: 'read', resources: ['knowledge'] });
    assert.equal((await ask({ query: PASSWORD_QUERY }, reader)).status, 200);
    assertStatus(await ask({ query: PASSWORD_QUERY }, hearth.token({ access: 'write', resources: ['workflows'] })), 403, 'INSUFFICIENT_SCOPE');
    assertStatus(await hearth.request('POST', `${K}/bases/${OTHER_UUID}/ask`, { token, body: { query: 'x' } }), 404, 'NOT_FOUND');
    assertStatus(await hearth.request('POST', `${K}/bases/not-a-uuid/ask`, { token, body: { query: 'x' } }), 404, 'NOT_FOUND');
    assertStatus(await hearth.request('GET', `${K}/bases/${OTHER_UUID}/unanswered`, { token }), 404, 'NOT_FOUND');
    assertStatus(await hearth.request('DELETE', `${K}/bases/${OTHER_UUID}/unanswered`, { token }), 404, 'NOT_FOUND');
    const other = hearth.engine.identity.createWorkspace('Other');
    const foreign = hearth.token({ workspaceId: other.id });
    assertStatus(await ask({ query: PASSWORD_QUERY }, foreign), 404, 'NOT_FOUND');
  });

  it('rides out a 429 and a 500 from the model server, and reports one that stays down without billing', async () => {
    fake.script({ status: 429, retryAfter: '0' }, { status: 500, retryAfter: '0' }, { reply: 'Use Settings [1].', usage: { prompt_tokens: 50, completion_tokens: 4 } });
    const ok = await ask({ query: PASSWORD_QUERY });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.answer, 'Use Settings [1].');
    assert.equal(fake.requests.length, 3);

    fake.reset();
    const rowsBefore = ledger().length;
    fake.script(...Array.from({ length: 4 }, () => ({ status: 503, retryAfter: '0', message: 'overloaded' })));
    const down = await ask({ query: PASSWORD_QUERY });
    assertStatus(down, 500, 'INTERNAL');
    assert.match((down.body as unknown as { error: string }).error, /answered 503: overloaded after 4 attempts/);
    assert.equal(fake.requests.length, 4);
    assert.equal(ledger().length, rowsBefore, 'a failed answer is not billed');
  });

  it('times out a model server that hangs, with an error saying so', async () => {
    assert.equal((await setModel({ timeoutMs: 300 })).status, 200);
    fake.script({ hang: true });
    const rowsBefore = ledger().length;
    const started = Date.now();
    const res = await ask({ query: PASSWORD_QUERY });
    assertStatus(res, 500, 'INTERNAL');
    assert.match((res.body as unknown as { error: string }).error, /sent nothing for 300 ms/);
    assert.ok(Date.now() - started < 3000);
    assert.equal(ledger().length, rowsBefore);
  });
});
