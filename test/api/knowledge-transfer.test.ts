import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { after, before, describe, it } from 'node:test';
import { TestHearth } from '../helpers/hearth.ts';
import { addEntry, assertFieldError, assertStatus, createBase, K, search, type EntryBody } from '../helpers/knowledge.ts';

const CSV_HEADER = 'subject,question,answer,altQuestions,keywords,status,validUntil';

/** Rows that break naive CSV: commas, quotes, newlines, pipes, emoji, non-Latin scripts. */
const TRICKY = [
  { subject: 'Quotes, Commas', question: 'What does "quoted, text" do?', answer: 'It keeps "quotes", commas, and\nnewlines\r\nintact.', altQuestions: ['Does a, comma survive?', 'What about "this"?'], keywords: ['csv', 'rfc 4180'] },
  { subject: 'Pipes', question: 'Is a|b a pipe question?', answer: 'Yes: a | b | c stays one answer.', altQuestions: ['x|y?'], keywords: ['pipe|symbol'] },
  { subject: 'Emoji', question: 'Which emoji means launch? 🚀', answer: 'The rocket 🚀, and 👩‍💻 for coding.', altQuestions: [], keywords: ['🚀'] },
  { subject: 'Русский', question: 'Как сбросить пароль?', answer: 'Нажмите «Забыли пароль».', altQuestions: ['Я забыл пароль'], keywords: ['пароль'] },
  { subject: '日本語', question: '営業時間は何時からですか？', answer: '午前9時から午後5時までです。', altQuestions: [], keywords: [] },
  { subject: 'العربية', question: 'ما هي ساعات العمل؟', answer: 'من التاسعة إلى الخامسة.', altQuestions: [], keywords: ['ساعات'] },
];

interface ImportBody {
  inserted: number;
  duplicates: number;
  conflicts: number;
}

describe('knowledge import and export over HTTP', () => {
  let hearth: TestHearth;
  let token: string;

  before(async () => {
    hearth = await TestHearth.start();
    token = hearth.token();
    hearth.engine.credits.setBalance(hearth.defaultWorkspaceId, 1000);
  });
  after(() => hearth.stop());

  const importRows = (kb: string, rows: unknown[]) => hearth.request<ImportBody>('POST', `${K}/bases/${kb}/import`, { token, body: { rows } });
  const listAll = async (kb: string): Promise<EntryBody[]> => (await hearth.request<{ items: EntryBody[] }>('GET', `${K}/bases/${kb}/entries?status=all&limit=500&sort=subject`, { token })).body.items;

  it('imports rows: General for a missing subject, duplicates skipped (base and batch), near-duplicates as drafts, the rest active even with reviewBeforeIndex', async () => {
    const kb = (await hearth.request<{ id: string }>('POST', `${K}/bases`, { token, body: { name: 'Import', reviewBeforeIndex: true } })).body.id;
    await addEntry(hearth, token, kb, { subject: 'Existing', question: 'Where is the printer?', answer: 'Floor 3.' });
    const res = await importRows(kb, [
      { question: 'How do I request a new laptop?', answer: 'File an IT ticket.' },
      { subject: 'IT', question: 'WHERE IS THE PRINTER?', answer: 'duplicate of the base' },
      { subject: 'IT', question: 'How do I connect to the VPN?', answer: 'Install the client.', altQuestions: ['VPN setup'], keywords: ['vpn'] },
      { subject: 'IT', question: 'how do i connect to the vpn?', answer: 'duplicate within the batch' },
      { subject: 'IT', question: 'How can I connect to the VPN?', answer: 'near-duplicate' },
      { subject: null, question: 'Who approves expenses?', answer: 'Your manager.' },
    ]);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { inserted: 4, duplicates: 2, conflicts: 1 });
    const all = await listAll(kb);
    assert.equal(all.length, 5);
    const byQuestion = new Map(all.map((e) => [e.question, e]));
    assert.equal(byQuestion.get('How do I request a new laptop?')!.subject, 'General');
    assert.equal(byQuestion.get('Who approves expenses?')!.subject, 'General');
    assert.equal(byQuestion.get('How do I request a new laptop?')!.status, 'active');
    assert.equal(byQuestion.get('How can I connect to the VPN?')!.status, 'draft');
    assert.equal(byQuestion.get('How can I connect to the VPN?')!.conflictOfId, byQuestion.get('How do I connect to the VPN?')!.id);
    assert.deepEqual(byQuestion.get('How do I connect to the VPN?')!.keywords, ['vpn']);
    assert.equal((await search(hearth, token, kb, 'new laptop request'))[0].question, 'How do I request a new laptop?');
  });

  it('is all or nothing: one invalid row refuses the whole import with the row named', async () => {
    const kb = await createBase(hearth, token, 'Atomic');
    const res = await importRows(kb, [
      { question: 'A fine row?', answer: 'Yes.' },
      { question: 'A row without an answer?' },
    ]);
    assertFieldError(res, 'rows.1.answer');
    assertFieldError(await importRows(kb, [{ question: 'q'.repeat(501), answer: 'x' }]), 'rows.0.question');
    assertFieldError(await importRows(kb, [{ question: 'Too many alts?', answer: 'x', altQuestions: ['1', '2', '3', '4', '5', '6'] }]), 'rows.0.altQuestions');
    assertFieldError(await importRows(kb, []), 'rows');
    assertFieldError(await hearth.request('POST', `${K}/bases/${kb}/import`, { token, body: {} }), 'rows');
    const tooMany = Array.from({ length: 2001 }, (_, i) => ({ question: `Question ${i}?`, answer: 'a' }));
    assertFieldError(await importRows(kb, tooMany), 'rows');
    assert.equal((await listAll(kb)).length, 0);
  });

  it('refuses with 400 an import that would take the base past 20 000 entries, changing nothing', async () => {
    const kb = await createBase(hearth, token, 'Full');
    // Fill the base to 19 999 rows directly in SQLite: embedding 20 000 entries would make this test minutes long.
    const now = new Date().toISOString();
    const insert = hearth.engine.db.prepare(
      "INSERT INTO entries (id, base_id, subject, question, question_key, answer, status, embed_sig, created_at, updated_at) VALUES (?, ?, 'Filler', ?, ?, 'a', 'archived', 'none', ?, ?)",
    );
    hearth.engine.db.transaction(() => {
      for (let i = 0; i < 19_999; i++) insert.run(crypto.randomUUID(), kb, `Filler ${i}?`, `filler ${i}?`, now, now);
    })();
    const res = await importRows(kb, [
      { question: 'Row one fits?', answer: 'a' },
      { question: 'Row two does not?', answer: 'b' },
    ]);
    assertFieldError(res, 'rows');
    assert.equal((await hearth.request<{ entryCount: number }>('GET', `${K}/bases/${kb}`, { token })).body.entryCount, 19_999);
    // Duplicates do not count toward the limit; one new row still fits.
    const fits = await importRows(kb, [
      { question: 'Filler 1?', answer: 'dup' },
      { question: 'Row one fits?', answer: 'a' },
    ]);
    assert.deepEqual(fits.body, { inserted: 1, duplicates: 1, conflicts: 0 });
    assertFieldError(await importRows(kb, [{ question: 'One too many?', answer: 'x' }]), 'rows');
  });

  it('exports CSV with exactly the contract header, RFC 4180 quoting, multi-values joined with " | ", no archived entries', async () => {
    const kb = await createBase(hearth, token, 'Export');
    assert.equal((await importRows(kb, TRICKY)).status, 200);
    const archived = await addEntry(hearth, token, kb, { subject: 'Old', question: 'An archived question?', answer: 'Gone.' });
    await hearth.request('PATCH', `${K}/bases/${kb}/entries/${archived.id}`, { token, body: { status: 'archived' } });
    const res = await hearth.request('GET', `${K}/bases/${kb}/export`, { token });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
    assert.equal(res.text.split('\r\n')[0], CSV_HEADER);
    const records = parse<Record<string, string>>(res.text, { columns: true, relax_quotes: false });
    assert.equal(records.length, TRICKY.length);
    const first = records.find((r) => r.subject === 'Quotes, Commas')!;
    assert.equal(first.answer, TRICKY[0].answer);
    assert.equal(first.altQuestions, 'Does a, comma survive? | What about "this"?');
    assert.equal(first.keywords, 'csv | rfc 4180');
    assert.equal(first.status, 'active');
    assert.equal(first.validUntil, '');
    assert.ok(!res.text.includes('An archived question?'));
    assert.equal((await hearth.request('GET', `${K}/bases/${kb}/export?format=xml`, { token })).status, 400);
  });

  it('export then import into a new base reproduces the entries (CSV and JSON)', async () => {
    const source = await createBase(hearth, token, 'Round trip source');
    assert.deepEqual((await importRows(source, TRICKY)).body, { inserted: TRICKY.length, duplicates: 0, conflicts: 0 });
    const withDate = await addEntry(hearth, token, source, { subject: 'Dated', question: 'Until when is this valid?', answer: 'Until 2031.', validUntil: '2031-06-30T12:00:00.000Z' });
    const original = await listAll(source);

    const csv = await hearth.request('GET', `${K}/bases/${source}/export?format=csv`, { token });
    const rows = parse<Record<string, string>>(csv.text, { columns: true }).map((r) => ({
      subject: r.subject,
      question: r.question,
      answer: r.answer,
      altQuestions: r.altQuestions ? r.altQuestions.split(' | ') : [],
      keywords: r.keywords ? r.keywords.split(' | ') : [],
      validUntil: r.validUntil || null,
    }));
    const fromCsv = await createBase(hearth, token, 'Round trip CSV');
    assert.deepEqual((await importRows(fromCsv, rows)).body, { inserted: original.length, duplicates: 0, conflicts: 0 });

    const json = await hearth.request<EntryBody[]>('GET', `${K}/bases/${source}/export?format=json`, { token });
    assert.equal(json.status, 200);
    assert.deepEqual(Object.keys(json.body[0]).sort(), Object.keys(withDate).filter((k) => k !== 'conflicts').sort());
    const fromJson = await createBase(hearth, token, 'Round trip JSON');
    // The JSON export is accepted as import rows as it is.
    assert.deepEqual((await importRows(fromJson, json.body)).body, { inserted: original.length, duplicates: 0, conflicts: 0 });

    const shape = (e: EntryBody) => ({ subject: e.subject, question: e.question, answer: e.answer, altQuestions: e.altQuestions, keywords: e.keywords, status: e.status, validUntil: e.validUntil });
    assert.deepEqual((await listAll(fromCsv)).map(shape), original.map(shape));
    assert.deepEqual((await listAll(fromJson)).map(shape), original.map(shape));
  });

  it('import and export need the right scope; a read token can export but not import', async () => {
    const kb = await createBase(hearth, token, 'Scopes');
    const reader = hearth.token({ access: 'read', resources: ['knowledge'] });
    assertStatus(await hearth.request('POST', `${K}/bases/${kb}/import`, { token: reader, body: { rows: [{ question: 'q?', answer: 'a' }] } }), 403, 'INSUFFICIENT_SCOPE');
    assert.equal((await hearth.request('GET', `${K}/bases/${kb}/export?format=json`, { token: reader })).status, 200);
    const none = hearth.token({ access: 'write', resources: ['workflows'] });
    assertStatus(await hearth.request('GET', `${K}/bases/${kb}/export`, { token: none }), 403, 'INSUFFICIENT_SCOPE');
  });
});
