import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TestHearth } from '../helpers/hearth.ts';
import { addEntry, assertFieldError, assertStatus, createBase, K, search, type EntryBody } from '../helpers/knowledge.ts';

/**
 * The index (FTS5 rows, entry_vectors rows, sqlite-vec rows) must always mirror the entries:
 * one keyword row per active entry with its current text, one vector per embedding text with
 * the entry's current signature, and no sqlite-vec row without its entry_vectors row.
 */
function indexProblems(hearth: TestHearth): string[] {
  const db = hearth.engine.db;
  const count = (sql: string): number => db.prepare(sql).pluck().get() as number;
  const problems: string[] = [];
  const checks: Array<[string, string]> = [
    ['keyword rows of missing or inactive entries', "SELECT COUNT(*) FROM entry_fts f WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.seq = f.rowid AND e.status = 'active')"],
    ['active entries without a keyword row', "SELECT COUNT(*) FROM entries e WHERE e.status = 'active' AND NOT EXISTS (SELECT 1 FROM entry_fts f WHERE f.rowid = e.seq)"],
    ['vector rows of missing entries', 'SELECT COUNT(*) FROM entry_vectors v WHERE NOT EXISTS (SELECT 1 FROM entries e WHERE e.seq = v.entry_seq)'],
    ['sqlite-vec rows without an entry_vectors row', 'SELECT COUNT(*) FROM vec_384 x WHERE NOT EXISTS (SELECT 1 FROM entry_vectors v WHERE v.id = x.rowid)'],
    ['entry_vectors rows without a sqlite-vec row', 'SELECT COUNT(*) FROM entry_vectors v WHERE NOT EXISTS (SELECT 1 FROM vec_384 x WHERE x.rowid = v.id)'],
    [
      'entries without current vectors for their base model',
      `SELECT COUNT(*) FROM entries e JOIN knowledge_bases b ON b.id = e.base_id WHERE b.indexing = 0 AND NOT EXISTS (
         SELECT 1 FROM entry_vectors v WHERE v.entry_seq = e.seq AND v.model_id = b.embedding_model AND v.sig = e.embed_sig)`,
    ],
    ['stale vectors (old text) on settled bases', "SELECT COUNT(*) FROM entry_vectors v JOIN entries e ON e.seq = v.entry_seq JOIN knowledge_bases b ON b.id = e.base_id WHERE b.indexing = 0 AND v.sig <> e.embed_sig"],
    [
      'vector count differs from the number of texts (question + alternatives)',
      `SELECT COUNT(*) FROM entries e JOIN knowledge_bases b ON b.id = e.base_id WHERE b.indexing = 0 AND
         (SELECT COUNT(*) FROM entry_vectors v WHERE v.entry_seq = e.seq AND v.model_id = b.embedding_model) <> 1 + json_array_length(e.alt_questions)`,
    ],
  ];
  for (const [what, sql] of checks) {
    const n = count(sql);
    if (n > 0) problems.push(`${n} ${what}`);
  }
  return problems;
}

function keywordText(hearth: TestHearth, entryId: string): string | undefined {
  return hearth.engine.db.prepare('SELECT f.questions FROM entry_fts f JOIN entries e ON e.seq = f.rowid WHERE e.id = ?').pluck().get(entryId) as string | undefined;
}

describe('index consistency', () => {
  let hearth: TestHearth;
  let token: string;

  before(async () => {
    hearth = await TestHearth.start();
    token = hearth.token();
    hearth.engine.credits.setBalance(hearth.defaultWorkspaceId, 1000);
  });
  after(() => hearth.stop());

  it('follows add, text edit, status changes and delete', async () => {
    const kb = await createBase(hearth, token, 'Consistency');
    const e = await addEntry(hearth, token, kb, { subject: 'Parking', question: 'Where can I park my bike?', answer: 'In the basement.', altQuestions: ['Bike parking', 'Bicycle storage'] });
    assert.deepEqual(indexProblems(hearth), []);
    assert.deepEqual(hearth.engine.knowledge.indexCounts(kb), { vectorRows: 3, keywordRows: 1 });

    await hearth.request('PATCH', `${K}/bases/${kb}/entries/${e.id}`, { token, body: { question: 'Where can I charge my e-scooter?', altQuestions: [] } });
    assert.deepEqual(indexProblems(hearth), []);
    assert.deepEqual(hearth.engine.knowledge.indexCounts(kb), { vectorRows: 1, keywordRows: 1 });
    assert.match(keywordText(hearth, e.id)!, /scooter/);
    assert.doesNotMatch(keywordText(hearth, e.id)!, /bike/);

    for (const status of ['draft', 'archived', 'active'] as const) {
      await hearth.request('PATCH', `${K}/bases/${kb}/entries/${e.id}`, { token, body: { status } });
      assert.deepEqual(indexProblems(hearth), [], `after ${status}`);
      assert.equal(hearth.engine.knowledge.indexCounts(kb).keywordRows, status === 'active' ? 1 : 0);
    }
    await hearth.request('DELETE', `${K}/bases/${kb}/entries/${e.id}`, { token });
    assert.deepEqual(indexProblems(hearth), []);
    assert.deepEqual(hearth.engine.knowledge.indexCounts(kb), { vectorRows: 0, keywordRows: 0 });
  });

  it('deleting a base removes its index with it (app session only; a token gets 403 FORBIDDEN)', async () => {
    const kb = await createBase(hearth, token, 'Doomed');
    await addEntry(hearth, token, kb, { subject: 'Doomed', question: 'Will this base be deleted?', answer: 'Yes.', altQuestions: ['Is it gone?'] });
    assertStatus(await hearth.request('DELETE', `${K}/bases/${kb}`, { token }), 403, 'FORBIDDEN');
    const res = await hearth.request('DELETE', `${K}/bases/${kb}`, { token: hearth.appSession });
    assert.equal(res.status, 200);
    assert.deepEqual(hearth.engine.knowledge.indexCounts(kb), { vectorRows: 0, keywordRows: 0 });
    assert.deepEqual(indexProblems(hearth), []);
    assertStatus(await hearth.request('GET', `${K}/bases/${kb}`, { token }), 404, 'NOT_FOUND');
  });

  it('a failure between writes leaves no entry, no orphan vectors and no stale text rows', async () => {
    const kb = await createBase(hearth, token, 'Failures');
    const kept = await addEntry(hearth, token, kb, { subject: 'Kept', question: 'Which entry survives the failures?', answer: 'This one.' });
    const before = hearth.engine.knowledge.indexCounts(kb);
    const spent = hearth.engine.credits.balance(hearth.defaultWorkspaceId);
    // Fails the write after the entry row and its keyword row went in, at the vector rows.
    hearth.engine.db.exec(`CREATE TEMP TRIGGER fail_vectors BEFORE INSERT ON main.entry_vectors BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    try {
      assert.equal((await hearth.request('POST', `${K}/bases/${kb}/entries`, { token, body: { subject: 'Lost', question: 'Does a failed add leave traces?', answer: 'No.' } })).status, 500);
      const imp = await hearth.request('POST', `${K}/bases/${kb}/import`, {
        token,
        body: { rows: [{ question: 'Failed import row one?', answer: 'a' }, { question: 'Failed import row two?', answer: 'b' }] },
      });
      assert.equal(imp.status, 500);
      const edit = await hearth.request('PATCH', `${K}/bases/${kb}/entries/${kept.id}`, { token, body: { question: 'A new question that never lands?' } });
      assert.equal(edit.status, 500);
    } finally {
      hearth.engine.db.exec('DROP TRIGGER temp.fail_vectors');
    }
    const all = (await hearth.request<{ items: EntryBody[] }>('GET', `${K}/bases/${kb}/entries?status=all`, { token })).body.items;
    assert.deepEqual(all.map((e) => e.question), ['Which entry survives the failures?']);
    assert.deepEqual(hearth.engine.knowledge.indexCounts(kb), before);
    assert.match(keywordText(hearth, kept.id)!, /survives/);
    assert.deepEqual(indexProblems(hearth), []);
    assert.equal(hearth.engine.credits.balance(hearth.defaultWorkspaceId), spent, 'failed writes spend nothing');
    assert.equal((await search(hearth, token, kb, 'which entry survives'))[0].id, kept.id);
    // And the index still takes writes afterwards.
    await addEntry(hearth, token, kb, { subject: 'After', question: 'Does adding work after a failure?', answer: 'Yes.' });
    assert.deepEqual(indexProblems(hearth), []);
  });

  it('changing the embedding model re-embeds in the background; search uses the old vectors until the new set is complete', async () => {
    // A second model: the bundled weights imported into the user's model folder under another id.
    const bundled = hearth.engine.embeddings.list().find((m) => m.origin === 'bundled')!;
    cpSync(bundled.path, join(hearth.dataDir, 'models', 'minilm-copy'), { recursive: true });
    assert.ok(hearth.engine.embeddings.list().some((m) => m.id === 'minilm-copy'));

    const kb = await createBase(hearth, token, 'Model switch');
    const rows = Array.from({ length: 300 }, (_, i) => ({ subject: 'Rooms', question: `What is on floor ${i} of building ${i % 7}?`, answer: `Room ${i}.` }));
    rows.push({ subject: 'Food', question: 'When does the canteen serve lunch?', answer: 'From noon to two.' });
    assert.equal((await hearth.request('POST', `${K}/bases/${kb}/import`, { token, body: { rows } })).status, 200);
    const oldModel = bundled.id;

    assertFieldError(await hearth.request('PATCH', `${K}/bases/${kb}`, { token, body: { embeddingModel: 'no-such-model' } }), 'embeddingModel');
    const patched = await hearth.request<{ embeddingModel: string; indexing: boolean; name: string }>('PATCH', `${K}/bases/${kb}`, { token, body: { embeddingModel: 'minilm-copy', name: 'Model switch 2' } });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.embeddingModel, oldModel, 'the base keeps its model until the new vectors are complete');
    assert.equal(patched.body.indexing, true);
    assert.equal(patched.body.name, 'Model switch 2');
    // Searching while the new vectors are written still answers from the old ones.
    const during = await search(hearth, token, kb, 'lunch time in the canteen');
    assert.equal(during[0].question, 'When does the canteen serve lunch?');

    await hearth.engine.knowledge.idle();
    const base = await hearth.request<{ embeddingModel: string; indexing: boolean; lastIndexedAt: string }>('GET', `${K}/bases/${kb}`, { token });
    assert.equal(base.body.embeddingModel, 'minilm-copy');
    assert.equal(base.body.indexing, false);
    const models = hearth.engine.db.prepare('SELECT model_id, COUNT(*) AS n FROM entry_vectors WHERE base_id = ? GROUP BY model_id').all(kb);
    assert.deepEqual(models, [{ model_id: 'minilm-copy', n: 301 }]);
    assert.deepEqual(indexProblems(hearth), []);
    assert.equal((await search(hearth, token, kb, 'lunch time in the canteen'))[0].question, 'When does the canteen serve lunch?');
  });

  it('resumes an unfinished model switch after a restart', async () => {
    const kb = await createBase(hearth, token, 'Resume');
    await addEntry(hearth, token, kb, { subject: 'Resume', question: 'Does indexing resume after a restart?', answer: 'Yes.' });
    // As if the app stopped right after the switch was asked for.
    hearth.engine.db.prepare("UPDATE knowledge_bases SET indexing = 1, pending_embedding_model = 'minilm-copy' WHERE id = ?").run(kb);
    await hearth.restart();
    await hearth.engine.knowledge.idle();
    const base = await hearth.request<{ embeddingModel: string; indexing: boolean }>('GET', `${K}/bases/${kb}`, { token });
    assert.deepEqual([base.body.embeddingModel, base.body.indexing], ['minilm-copy', false]);
    assert.deepEqual(indexProblems(hearth), []);
    assert.equal((await search(hearth, token, kb, 'indexing after restart'))[0].question, 'Does indexing resume after a restart?');
  });
});
