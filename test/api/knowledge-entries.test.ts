import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestHearth } from '../helpers/hearth.ts';
import { addEntry, assertFieldError, assertStatus, createBase, K, OTHER_UUID, search, type EntryBody } from '../helpers/knowledge.ts';

const ENTRY_FIELDS = [
  'altQuestions', 'answer', 'conflictOfId', 'createdAt', 'hitCount', 'id', 'keywords', 'lastHitAt', 'messageId', 'page', 'question',
  'sourceExcerpt', 'sourceId', 'sourceTitle', 'status', 'subject', 'updatedAt', 'validUntil',
]; // prettier-ignore

describe('knowledge entries over HTTP', () => {
  let hearth: TestHearth;
  let token: string;
  let kb: string;

  before(async () => {
    hearth = await TestHearth.start();
    token = hearth.token();
    hearth.engine.credits.setBalance(hearth.defaultWorkspaceId, 1000);
    kb = await createBase(hearth, token, 'Entries');
  });
  after(() => hearth.stop());

  it('adds an entry active and searchable at once, with every field of 2.3 and conflicts 0', async () => {
    const entry = await addEntry(hearth, token, kb, {
      subject: 'Accounts',
      question: 'How do I reset my password?',
      answer: 'Open Settings, choose Security and press Reset password.',
      altQuestions: ['I forgot my password'],
      keywords: ['password', 'login'],
      validUntil: '2030-01-01T00:00:00Z',
    });
    assert.deepEqual(Object.keys(entry).sort(), [...ENTRY_FIELDS, 'conflicts'].sort());
    assert.equal(entry.status, 'active');
    assert.equal(entry.conflicts, 0);
    assert.equal(entry.conflictOfId, null);
    assert.equal(entry.validUntil, '2030-01-01T00:00:00.000Z');
    assert.deepEqual(entry.altQuestions, ['I forgot my password']);
    const hits = await search(hearth, token, kb, 'forgot my login password');
    assert.equal(hits[0].id, entry.id);
    assert.ok(hits[0].vectorScore > 0.5 && hits[0].score >= hits[0].vectorScore && hits[0].score <= 1);
    assert.deepEqual(Object.keys(hits[0]).sort(), ['answer', 'id', 'question', 'score', 'subject', 'vectorScore']);
    const base = await hearth.request<{ entryCount: number; lastIndexedAt: string | null }>('GET', `${K}/bases/${kb}`, { token });
    assert.equal(base.body.entryCount, 1);
    assert.ok(base.body.lastIndexedAt);
  });

  it('refuses an exact duplicate question (case-insensitive) with 400 fieldErrors.question', async () => {
    const res = await hearth.request('POST', `${K}/bases/${kb}/entries`, { token, body: { subject: 'Accounts', question: '  how do I RESET my password?  ', answer: 'x' } });
    assertFieldError(res, 'question');
  });

  it('lands a near-duplicate (>= 0.92) as a draft with conflictOfId and conflicts 1, not searchable', async () => {
    const original = (await hearth.request<{ items: EntryBody[] }>('GET', `${K}/bases/${kb}/entries?q=reset`, { token })).body.items[0];
    const near = await addEntry(hearth, token, kb, { subject: 'Accounts', question: 'How can I reset my password?', answer: 'Use Settings > Security.' });
    assert.equal(near.status, 'draft');
    assert.equal(near.conflicts, 1);
    assert.equal(near.conflictOfId, original.id);
    const hits = await search(hearth, token, kb, 'How can I reset my password?', 10);
    assert.ok(!hits.some((h) => h.id === near.id), 'a draft is not searchable');
    const conflicts = await hearth.request<{ items: EntryBody[]; total: number }>('GET', `${K}/bases/${kb}/entries?status=conflicts`, { token });
    assert.deepEqual(conflicts.body.items.map((e) => e.id), [near.id]);
  });

  it('enforces every bound of 2.3 and section 8 on add, naming the field', async () => {
    const ok = { subject: 'Bounds', question: 'A question within bounds?', answer: 'An answer.' };
    const cases: Array<[string, Record<string, unknown>]> = [
      ['subject', { ...ok, subject: '' }],
      ['subject', { ...ok, subject: 'S'.repeat(61) }],
      ['question', { ...ok, question: '   ' }],
      ['question', { ...ok, question: 'q'.repeat(501) }],
      ['answer', { ...ok, answer: '' }],
      ['answer', { ...ok, answer: 'a'.repeat(2001) }],
      ['altQuestions', { ...ok, altQuestions: ['1', '2', '3', '4', '5', '6'] }],
      ['altQuestions.0', { ...ok, altQuestions: ['x'.repeat(301)] }],
      ['keywords', { ...ok, keywords: Array.from({ length: 11 }, (_, i) => `k${i}`) }],
      ['validUntil', { ...ok, validUntil: 'next tuesday' }],
      ['subject', { question: ok.question, answer: ok.answer }],
    ];
    for (const [field, body] of cases) assertFieldError(await hearth.request('POST', `${K}/bases/${kb}/entries`, { token, body }), field);
    // Upper bounds count characters: 500 emoji is a valid question, 2000 accented letters a valid answer.
    const big = await addEntry(hearth, token, kb, { subject: 'S'.repeat(60), question: '🙂'.repeat(499) + '?', answer: 'é'.repeat(2000), altQuestions: ['a', 'b', 'c', 'd', 'e'], keywords: Array.from({ length: 10 }, (_, i) => `k${i}`) });
    assert.equal(big.status, 'active');
    const list = await hearth.request<{ total: number }>('GET', `${K}/bases/${kb}/entries?subject=Bounds`, { token });
    assert.equal(list.body.total, 0, 'nothing was stored by the refused adds');
  });

  it('answers 402 with details.balance at a zero balance and changes nothing', async () => {
    const ws = hearth.defaultWorkspaceId;
    const before = (await hearth.request<{ total: number }>('GET', `${K}/bases/${kb}/entries?status=all`, { token })).body.total;
    hearth.engine.credits.setBalance(ws, 0);
    try {
      const res = await hearth.request<{ details: { balance: number } }>('POST', `${K}/bases/${kb}/entries`, { token, body: { subject: 'Money', question: 'Will this be stored?', answer: 'No.' } });
      assertStatus(res, 402, 'INSUFFICIENT_CREDITS');
      assert.equal(res.body.details.balance, 0);
      const imp = await hearth.request('POST', `${K}/bases/${kb}/import`, { token, body: { rows: [{ question: 'Imported while broke?', answer: 'No.' }] } });
      assertStatus(imp, 402, 'INSUFFICIENT_CREDITS');
      const entry = (await hearth.request<{ items: EntryBody[] }>('GET', `${K}/bases/${kb}/entries?status=active`, { token })).body.items[0];
      const edit = await hearth.request('PATCH', `${K}/bases/${kb}/entries/${entry.id}`, { token, body: { question: 'A changed question while broke?' } });
      assertStatus(edit, 402, 'INSUFFICIENT_CREDITS');
      assert.equal((await hearth.request<EntryBody>('GET', `${K}/bases/${kb}/entries?q=changed`, { token })).body.question, undefined);
      // Search spends nothing, so it still works at 0.
      assert.equal((await hearth.request('POST', `${K}/bases/${kb}/search`, { token, body: { query: 'password' } })).status, 200);
      assert.equal((await hearth.request<{ total: number }>('GET', `${K}/bases/${kb}/entries?status=all`, { token })).body.total, before);
    } finally {
      hearth.engine.credits.setBalance(ws, 1000);
    }
  });

  it('spends embedding credits on add and text edits, and nothing on search', async () => {
    const ws = hearth.defaultWorkspaceId;
    const start = hearth.engine.credits.balance(ws);
    const entry = await addEntry(hearth, token, kb, { subject: 'Credits', question: 'Does adding cost credits?', answer: 'A little.' });
    const afterAdd = hearth.engine.credits.balance(ws);
    assert.ok(afterAdd < start);
    await search(hearth, token, kb, 'credits');
    assert.equal(hearth.engine.credits.balance(ws), afterAdd);
    const edit = await hearth.request('PATCH', `${K}/bases/${kb}/entries/${entry.id}`, { token, body: { question: 'Does adding an entry cost credits?' } });
    assert.equal(edit.status, 200);
    assert.ok(hearth.engine.credits.balance(ws) < afterAdd);
    const ledger = hearth.engine.credits.ledger(ws, 2);
    assert.equal(ledger[0].call, 'entry.edit');
    assert.ok(ledger[0].embeddingTokens > 0);
  });

  it('re-embeds on text edits: search follows the new text', async () => {
    const entry = await addEntry(hearth, token, kb, { subject: 'Pets', question: 'Can I bring my dog to the office?', answer: 'Yes, on Fridays.' });
    assert.equal((await search(hearth, token, kb, 'dog in the office'))[0].id, entry.id);
    const res = await hearth.request<EntryBody>('PATCH', `${K}/bases/${kb}/entries/${entry.id}`, { token, body: { question: 'Which parking spot may visitors use?', answer: 'Spots 1 to 4.' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.question, 'Which parking spot may visitors use?');
    const hits = await search(hearth, token, kb, 'where do visitors park');
    assert.equal(hits[0].id, entry.id);
    assert.ok(hits[0].vectorScore > 0.4);
    const dogHit = (await search(hearth, token, kb, 'Can I bring my dog to the office?', 10)).find((h) => h.id === entry.id);
    assert.ok(!dogHit || dogHit.vectorScore < 0.5, 'the old question no longer matches');
  });

  it('refuses a PATCH to a question another entry has, and an empty or invalid PATCH', async () => {
    const a = await addEntry(hearth, token, kb, { subject: 'Patch', question: 'What is the office wifi password?', answer: 'Ask reception.' });
    assertFieldError(await hearth.request('PATCH', `${K}/bases/${kb}/entries/${a.id}`, { token, body: { question: 'HOW DO I RESET MY PASSWORD?' } }), 'question');
    assertFieldError(await hearth.request('PATCH', `${K}/bases/${kb}/entries/${a.id}`, { token, body: {} }), 'body');
    assertFieldError(await hearth.request('PATCH', `${K}/bases/${kb}/entries/${a.id}`, { token, body: { status: 'deleted' } }), 'status');
    assertFieldError(await hearth.request('PATCH', `${K}/bases/${kb}/entries/${a.id}`, { token, body: { resolveConflict: 'keep' } }), 'resolveConflict');
  });

  it('PATCH status moves between active, draft and archived; only active is searchable', async () => {
    const e = await addEntry(hearth, token, kb, { subject: 'Status', question: 'When is the cafeteria open?', answer: 'From 8 to 15.' });
    const found = async (): Promise<boolean> => (await search(hearth, token, kb, 'cafeteria opening hours', 10)).some((h) => h.id === e.id);
    assert.ok(await found());
    for (const [status, searchable] of [['draft', false], ['active', true], ['archived', false], ['active', true]] as const) {
      const res = await hearth.request<EntryBody>('PATCH', `${K}/bases/${kb}/entries/${e.id}`, { token, body: { status } });
      assert.equal(res.body.status, status);
      assert.equal(await found(), searchable, `after ${status}`);
    }
  });

  it('resolveConflict keep clears the flag and keeps both; replace activates and archives the older entry', async () => {
    const older = await addEntry(hearth, token, kb, { subject: 'Holidays', question: 'How many vacation days do I get per year?', answer: '25 days.' });
    const keep = await addEntry(hearth, token, kb, { subject: 'Holidays', question: 'How many vacation days do I get each year?', answer: '25.' });
    assert.equal(keep.conflictOfId, older.id);
    const kept = await hearth.request<EntryBody>('PATCH', `${K}/bases/${kb}/entries/${keep.id}`, { token, body: { resolveConflict: 'keep' } });
    assert.equal(kept.body.status, 'draft');
    assert.equal(kept.body.conflictOfId, null);
    assert.equal((await hearth.request('DELETE', `${K}/bases/${kb}/entries/${keep.id}`, { token })).status, 200);

    const replace = await addEntry(hearth, token, kb, { subject: 'Holidays', question: 'How many vacation days do I get in a year?', answer: '27 days from 2027.' });
    assert.equal(replace.status, 'draft');
    assert.equal(replace.conflictOfId, older.id);
    const replaced = await hearth.request<EntryBody>('PATCH', `${K}/bases/${kb}/entries/${replace.id}`, { token, body: { resolveConflict: 'replace' } });
    assert.equal(replaced.body.status, 'active');
    assert.equal(replaced.body.conflictOfId, null);
    const all = (await hearth.request<{ items: EntryBody[] }>('GET', `${K}/bases/${kb}/entries?status=all&q=vacation`, { token })).body.items;
    assert.equal(all.find((e) => e.id === replace.conflictOfId)?.status, 'archived');
    assert.equal((await search(hearth, token, kb, 'vacation days per year'))[0].id, replace.id);
  });

  it('deletes an entry permanently', async () => {
    const e = await addEntry(hearth, token, kb, { subject: 'Delete', question: 'Is there a gym in the building?', answer: 'On floor 2.' });
    const res = await hearth.request('DELETE', `${K}/bases/${kb}/entries/${e.id}`, { token });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { ok: true });
    assert.ok(!(await search(hearth, token, kb, 'gym in the building', 10)).some((h) => h.id === e.id));
    assertStatus(await hearth.request('DELETE', `${K}/bases/${kb}/entries/${e.id}`, { token }), 404, 'NOT_FOUND');
  });

  it('search: bounds, accents, casing, Japanese and Chinese, and it changes nothing', async () => {
    const ja = await addEntry(hearth, token, kb, { subject: 'Japan', question: '東京都の天気はどうですか', answer: '晴れです。' });
    const zh = await addEntry(hearth, token, kb, { subject: 'China', question: '北京的天气怎么样', answer: '今天很冷。' });
    const fr = await addEntry(hearth, token, kb, { subject: 'Desserts', question: 'Où acheter une crème brûlée?', answer: 'À la pâtisserie du coin.' });
    assert.equal((await search(hearth, token, kb, '東京 天気'))[0].id, ja.id);
    assert.equal((await search(hearth, token, kb, '北京天气'))[0].id, zh.id);
    assert.equal((await search(hearth, token, kb, 'CREME BRULEE'))[0].id, fr.id);
    assert.equal((await search(hearth, token, kb, 'patisserie'))[0].id, fr.id);

    assert.equal((await search(hearth, token, kb, 'weather', 2)).length, 2);
    assertFieldError(await hearth.request('POST', `${K}/bases/${kb}/search`, { token, body: { query: '   ' } }), 'query');
    assertFieldError(await hearth.request('POST', `${K}/bases/${kb}/search`, { token, body: {} }), 'query');
    assertFieldError(await hearth.request('POST', `${K}/bases/${kb}/search`, { token, body: { query: 'x', topK: 0 } }), 'topK');
    assertFieldError(await hearth.request('POST', `${K}/bases/${kb}/search`, { token, body: { query: 'x', topK: 51 } }), 'topK');

    const before = (await hearth.request<{ items: EntryBody[] }>('GET', `${K}/bases/${kb}/entries?status=all&limit=500`, { token })).body.items;
    const reader = hearth.token({ access: 'read', resources: ['knowledge'] });
    const res = await hearth.request<{ hits: unknown[]; embeddingTokens: number }>('POST', `${K}/bases/${kb}/search`, { token: reader, body: { query: 'crème brûlée' } });
    assert.equal(res.status, 200);
    assert.ok(res.body.embeddingTokens > 0);
    const afterSearch = (await hearth.request<{ items: EntryBody[] }>('GET', `${K}/bases/${kb}/entries?status=all&limit=500`, { token })).body.items;
    assert.deepEqual(afterSearch, before);
  });

  it('recordHits (used by ask) updates hitCount and lastHitAt; sort=hits and sort=unused follow', async () => {
    const base2 = await createBase(hearth, token, 'Hits');
    const a = await addEntry(hearth, token, base2, { subject: 'A', question: 'First question about printers?', answer: 'a' });
    const b = await addEntry(hearth, token, base2, { subject: 'B', question: 'Second question about coffee?', answer: 'b' });
    hearth.engine.knowledge.recordHits(base2, [b.id]);
    hearth.engine.knowledge.recordHits(base2, [b.id, OTHER_UUID]);
    const hits = (await hearth.request<{ items: EntryBody[] }>('GET', `${K}/bases/${base2}/entries?sort=hits`, { token })).body.items;
    assert.equal(hits[0].id, b.id);
    assert.equal(hits[0].hitCount, 2);
    assert.ok(hits[0].lastHitAt);
    const unused = (await hearth.request<{ items: EntryBody[] }>('GET', `${K}/bases/${base2}/entries?sort=unused`, { token })).body.items;
    assert.equal(unused[0].id, a.id);
  });

  it('lists with q, subject, status filters, sorts, limit, offset and total; subjects most used first', async () => {
    const base3 = await createBase(hearth, token, 'Listing');
    const made: EntryBody[] = [];
    const specs = [
      ['Billing', 'How do I pay an invoice?', 'By card or transfer.'],
      ['Billing', 'Where can I download receipts?', 'In Billing > History.'],
      ['Billing', 'Can I change my plan?', 'Yes, any time.'],
      ['Shipping', 'How long does delivery take?', 'Three days.'],
      ['Returns', 'What is the return window?', 'Thirty days from delivery.'],
    ];
    for (const [subject, question, answer] of specs) made.push(await addEntry(hearth, token, base3, { subject, question, answer }));
    const list = async (qs: string): Promise<{ items: EntryBody[]; total: number }> => {
      const res = await hearth.request<{ items: EntryBody[]; total: number }>('GET', `${K}/bases/${base3}/entries${qs}`, { token });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const newest = await list('');
    assert.equal(newest.total, 5);
    assert.deepEqual(newest.items.map((e) => e.id), made.map((e) => e.id).reverse());
    assert.deepEqual((await list('?q=DELIVERY')).items.map((e) => e.id).sort(), [made[3].id, made[4].id].sort(), 'q matches question or answer, any case');
    assert.equal((await list('?q=billing')).total, 3, 'q matches the subject');
    assert.equal((await list('?subject=Billing')).total, 3);
    assert.equal((await list('?subject=billing')).total, 0, 'subject is exact');
    assert.equal((await list('?source=' + OTHER_UUID)).total, 0);
    const page = await list('?limit=2&offset=2');
    assert.equal(page.total, 5);
    assert.deepEqual(page.items.map((e) => e.id), [made[2].id, made[1].id]);
    assert.deepEqual((await list('?sort=subject')).items.map((e) => e.subject), ['Billing', 'Billing', 'Billing', 'Returns', 'Shipping']);

    await hearth.request('PATCH', `${K}/bases/${base3}/entries/${made[0].id}`, { token, body: { status: 'archived' } });
    await hearth.request('PATCH', `${K}/bases/${base3}/entries/${made[1].id}`, { token, body: { status: 'draft' } });
    const soon = new Date(Date.now() + 10 * 86_400_000).toISOString();
    const later = new Date(Date.now() + 60 * 86_400_000).toISOString();
    await hearth.request('PATCH', `${K}/bases/${base3}/entries/${made[3].id}`, { token, body: { validUntil: soon } });
    await hearth.request('PATCH', `${K}/bases/${base3}/entries/${made[4].id}`, { token, body: { validUntil: later } });
    assert.equal((await list('')).total, 4, 'default: everything but archived');
    assert.equal((await list('?status=all')).total, 5);
    assert.deepEqual((await list('?status=archived')).items.map((e) => e.id), [made[0].id]);
    assert.deepEqual((await list('?status=draft')).items.map((e) => e.id), [made[1].id]);
    assert.equal((await list('?status=active')).total, 3);
    assert.deepEqual((await list('?status=expiring')).items.map((e) => e.id), [made[3].id]);

    const subjects = await hearth.request<Array<{ subject: string; count: number }>>('GET', `${K}/bases/${base3}/subjects`, { token });
    assert.deepEqual(subjects.body, [
      { subject: 'Billing', count: 2 },
      { subject: 'Returns', count: 1 },
      { subject: 'Shipping', count: 1 },
    ]);

    for (const bad of ['?limit=0', '?limit=501', '?offset=-1', '?status=gone', '?sort=oldest']) {
      const res = await hearth.request('GET', `${K}/bases/${base3}/entries${bad}`, { token });
      assert.equal(res.status, 400, bad);
    }
    assert.equal((await list('?limit=500')).items.length, 4);
  });

  it('bulk: approve, activate, archive, setSubject, delete; affected counts only this base; up to 500 ids', async () => {
    const b = await createBase(hearth, token, 'Bulk');
    const other = await createBase(hearth, token, 'Bulk other');
    const x = await addEntry(hearth, token, b, { subject: 'One', question: 'How do I book a meeting room?', answer: 'In the calendar.' });
    const draft = await addEntry(hearth, token, b, { subject: 'One', question: 'How can I book a meeting room?', answer: 'Calendar.' });
    const y = await addEntry(hearth, token, b, { subject: 'Two', question: 'Who cleans the kitchen?', answer: 'The cleaning team.' });
    const foreign = await addEntry(hearth, token, other, { subject: 'Other', question: 'Question of another base?', answer: 'x' });
    assert.equal(draft.status, 'draft');
    const bulk = (body: Record<string, unknown>) => hearth.request<{ affected: number }>('POST', `${K}/bases/${b}/entries/bulk`, { token, body });

    const approve = await bulk({ ids: [x.id, draft.id, foreign.id, OTHER_UUID, 'not-a-uuid'], action: 'approve' });
    assert.equal(approve.status, 200);
    assert.equal(approve.body.affected, 1, 'only the draft of this base');
    const approved = (await hearth.request<{ items: EntryBody[] }>('GET', `${K}/bases/${b}/entries?status=all`, { token })).body.items.find((e) => e.id === draft.id)!;
    assert.equal(approved.status, 'active');
    assert.equal(approved.conflictOfId, null, 'approve clears the conflict flag');

    assert.equal((await bulk({ ids: [x.id, y.id, foreign.id], action: 'archive' })).body.affected, 2);
    assert.ok(!(await search(hearth, token, b, 'who cleans the kitchen', 10)).some((h) => h.id === y.id));
    const foreignAfter = (await hearth.request<{ items: EntryBody[] }>('GET', `${K}/bases/${other}/entries`, { token })).body.items[0];
    assert.equal(foreignAfter.status, 'active', 'another base is untouched');
    assert.equal((await bulk({ ids: [x.id, y.id], action: 'activate' })).body.affected, 2);
    assert.equal((await search(hearth, token, b, 'who cleans the kitchen'))[0].id, y.id);

    const set = await bulk({ ids: [x.id, y.id, foreign.id], action: 'setSubject', subject: 'Office' });
    assert.equal(set.body.affected, 2);
    await hearth.engine.knowledge.idle();
    const subjects = await hearth.request<Array<{ subject: string; count: number }>>('GET', `${K}/bases/${b}/subjects`, { token });
    assert.deepEqual(subjects.body[0], { subject: 'Office', count: 2 });
    const base = await hearth.request<{ indexing: boolean; lastIndexedAt: string }>('GET', `${K}/bases/${b}`, { token });
    assert.equal(base.body.indexing, false);
    assert.equal(hearth.engine.db.prepare("SELECT COUNT(*) AS n FROM entry_vectors v JOIN entries e ON e.seq = v.entry_seq WHERE v.sig <> e.embed_sig AND e.base_id = ?").pluck().get(b), 0, 'every vector was re-embedded with the new subject');

    assertFieldError(await bulk({ ids: [x.id], action: 'setSubject' }), 'subject');
    assertFieldError(await bulk({ ids: [x.id], action: 'explode' }), 'action');
    assertFieldError(await bulk({ ids: Array.from({ length: 501 }, () => OTHER_UUID), action: 'archive' }), 'ids');
    assert.equal((await bulk({ ids: Array.from({ length: 500 }, () => OTHER_UUID), action: 'archive' })).body.affected, 0);

    assert.equal((await bulk({ ids: [x.id, draft.id, foreign.id], action: 'delete' })).body.affected, 2);
    const left = (await hearth.request<{ items: EntryBody[] }>('GET', `${K}/bases/${b}/entries?status=all`, { token })).body.items;
    assert.deepEqual(left.map((e) => e.id), [y.id]);
    assert.equal((await hearth.request<{ total: number }>('GET', `${K}/bases/${other}/entries`, { token })).body.total, 1);
  });

  it('404 for unknown, non-UUID and other-workspace bases and entries', async () => {
    const e = await addEntry(hearth, token, kb, { subject: 'Found', question: 'Is this entry reachable?', answer: 'Only here.' });
    const otherWs = hearth.engine.identity.createWorkspace('Elsewhere');
    const stranger = hearth.token({ workspaceId: otherWs.id });
    const paths: Array<[string, string, unknown?]> = [
      ['GET', `/bases/${kb}/entries`],
      ['GET', `/bases/${kb}/subjects`],
      ['POST', `/bases/${kb}/search`, { query: 'x' }],
      ['POST', `/bases/${kb}/entries`, { subject: 'A', question: 'B?', answer: 'C' }],
      ['PATCH', `/bases/${kb}/entries/${e.id}`, { status: 'archived' }],
      ['DELETE', `/bases/${kb}/entries/${e.id}`],
      ['POST', `/bases/${kb}/entries/bulk`, { ids: [e.id], action: 'archive' }],
      ['POST', `/bases/${kb}/import`, { rows: [{ question: 'q?', answer: 'a' }] }],
      ['GET', `/bases/${kb}/export`],
    ];
    for (const [method, path, body] of paths) {
      assertStatus(await hearth.request(method, K + path, { token: stranger, body }), 404, 'NOT_FOUND');
      assertStatus(await hearth.request(method, K + path.replace(kb, OTHER_UUID), { token, body }), 404, 'NOT_FOUND');
      assertStatus(await hearth.request(method, K + path.replace(kb, 'not-a-uuid'), { token, body }), 404, 'NOT_FOUND');
    }
    assertStatus(await hearth.request('PATCH', `${K}/bases/${kb}/entries/${OTHER_UUID}`, { token, body: { status: 'archived' } }), 404, 'NOT_FOUND');
    assertStatus(await hearth.request('PATCH', `${K}/bases/${kb}/entries/nope`, { token, body: { status: 'archived' } }), 404, 'NOT_FOUND');
    assertStatus(await hearth.request('DELETE', `${K}/bases/${kb}/entries/${OTHER_UUID}`, { token }), 404, 'NOT_FOUND');
    const otherBase = await createBase(hearth, token, 'Not the entry base');
    assertStatus(await hearth.request('DELETE', `${K}/bases/${otherBase}/entries/${e.id}`, { token }), 404, 'NOT_FOUND');
    assert.equal((await search(hearth, token, kb, 'Is this entry reachable?'))[0].id, e.id);
  });

  it('a read token gets 403 INSUFFICIENT_SCOPE on writes; a legacy per-base key works on its base only', async () => {
    const reader = hearth.token({ access: 'read', resources: ['knowledge'] });
    const res = await hearth.request<{ details: { required: string } }>('POST', `${K}/bases/${kb}/entries`, { token: reader, body: { subject: 'A', question: 'Q?', answer: 'A' } });
    assertStatus(res, 403, 'INSUFFICIENT_SCOPE');
    assert.equal(res.body.details.required, 'knowledge:write');
    for (const [method, path] of [['PATCH', `/bases/${kb}/entries/${OTHER_UUID}`], ['DELETE', `/bases/${kb}/entries/${OTHER_UUID}`], ['POST', `/bases/${kb}/entries/bulk`], ['POST', `/bases/${kb}/import`]] as const) {
      assertStatus(await hearth.request(method, K + path, { token: reader, body: method === 'DELETE' ? undefined : {} }), 403, 'INSUFFICIENT_SCOPE');
    }

    const own = await createBase(hearth, token, 'Legacy own');
    const legacy = hearth.token({ knowledgeBaseId: own });
    const added = await hearth.request<EntryBody>('POST', `${K}/bases/${own}/entries`, { token: legacy, body: { subject: 'Legacy', question: 'Does the legacy key work here?', answer: 'Yes.' } });
    assert.equal(added.status, 201);
    assert.equal((await hearth.request('POST', `${K}/bases/${own}/search`, { token: legacy, body: { query: 'legacy key' } })).status, 200);
    assert.equal((await hearth.request('GET', `${K}/bases/${own}/export`, { token: legacy })).status, 200);
    for (const [method, path, body] of [
      ['GET', `/bases/${kb}/entries`, undefined],
      ['POST', `/bases/${kb}/search`, { query: 'x' }],
      ['POST', `/bases/${kb}/entries`, { subject: 'A', question: 'Q?', answer: 'A' }],
      ['POST', `/bases/${kb}/import`, { rows: [{ question: 'q?', answer: 'a' }] }],
    ] as const) {
      assertStatus(await hearth.request(method, K + path, { token: legacy, body }), 403, 'FORBIDDEN');
    }
    const bases = await hearth.request<Array<{ id: string }>>('GET', `${K}/bases`, { token: legacy });
    assert.deepEqual(bases.body.map((b) => b.id), [own]);
  });
});
