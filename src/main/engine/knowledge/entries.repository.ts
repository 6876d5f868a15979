import { indexText } from '../retrieval/text.ts';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../storage/database.ts';
import type { Entry, EntryFilter, EntryStatus } from './entries.types.ts';
import { ENTRY_LIMITS } from './entries.types.ts';

interface EntryRow {
  seq: number;
  id: string;
  base_id: string;
  subject: string;
  question: string;
  alt_questions: string;
  answer: string;
  keywords: string;
  source_excerpt: string | null;
  page: number | null;
  status: EntryStatus;
  conflict_of_id: string | null;
  valid_until: string | null;
  hit_count: number;
  last_hit_at: string | null;
  source_id: string | null;
  source_title: string | null;
  message_id: string | null;
  embed_sig: string;
  created_at: string;
  updated_at: string;
}

/** An entry with the engine-private keys the index needs. */
export interface StoredEntry extends Entry {
  seq: number;
  baseId: string;
  embedSig: string;
}

const toEntry = (r: EntryRow): StoredEntry => ({
  id: r.id,
  subject: r.subject,
  question: r.question,
  altQuestions: JSON.parse(r.alt_questions) as string[],
  answer: r.answer,
  keywords: JSON.parse(r.keywords) as string[],
  sourceExcerpt: r.source_excerpt,
  page: r.page,
  status: r.status,
  conflictOfId: r.conflict_of_id,
  validUntil: r.valid_until,
  hitCount: r.hit_count,
  lastHitAt: r.last_hit_at,
  sourceId: r.source_id,
  sourceTitle: r.source_title,
  messageId: r.message_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  seq: r.seq,
  baseId: r.base_id,
  embedSig: r.embed_sig,
});

/** The public shape: engine-private keys removed. */
export function publicEntry(e: StoredEntry): Entry {
  const { seq: _seq, baseId: _baseId, embedSig: _sig, ...entry } = e;
  return entry;
}

export interface NewEntryRow {
  id: string;
  baseId: string;
  subject: string;
  question: string;
  questionKey: string;
  altQuestions: string[];
  answer: string;
  keywords: string[];
  sourceExcerpt?: string | null;
  page?: number | null;
  status: EntryStatus;
  conflictOfId: string | null;
  validUntil: string | null;
  sourceId?: string | null;
  sourceTitle?: string | null;
  messageId?: string | null;
  embedSig: string;
  createdAt: string;
}

export interface EntryTextChanges {
  subject: string;
  question: string;
  questionKey: string;
  altQuestions: string[];
  answer: string;
  keywords: string[];
  validUntil: string | null;
  embedSig: string;
}

const SORTS: Record<NonNullable<EntryFilter['sort']>, string> = {
  newest: 'e.created_at DESC, e.seq DESC',
  hits: 'e.hit_count DESC, e.last_hit_at DESC, e.seq DESC',
  unused: 'e.hit_count ASC, e.last_hit_at ASC NULLS FIRST, e.created_at ASC, e.seq ASC',
  subject: 'e.subject COLLATE NOCASE ASC, e.question COLLATE NOCASE ASC, e.seq ASC',
};

function vecTable(dim: number): string {
  if (!Number.isInteger(dim) || dim <= 0 || dim > 8192) throw new Error(`Unsupported vector dimension ${dim}`);
  return `vec_${dim}`;
}

/** A view on the blob when it is aligned (the usual case), else a copy. */
function asFloat32(blob: Buffer): Float32Array {
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4);
  return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
}

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Entries, their keyword rows and their vectors. The only place their SQL lives. */
export class EntriesRepository {
  private readonly db: Db;
  private readonly vecTables = new Set<number>();
  /** Prepared once: preparing costs about as much as running these small statements. */
  private readonly statements = new Map<string, Statement>();

  constructor(db: Db) {
    this.db = db;
  }

  private stmt(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  // ---- entries -------------------------------------------------------------

  insert(row: NewEntryRow): number {
    const info = this.db
      .prepare(
        `INSERT INTO entries (id, base_id, subject, question, question_key, alt_questions, answer, keywords, source_excerpt, page, status,
           conflict_of_id, valid_until, source_id, source_title, message_id, embed_sig, created_at, updated_at)
         VALUES (@id, @baseId, @subject, @question, @questionKey, @altQuestions, @answer, @keywords, @sourceExcerpt, @page, @status,
           @conflictOfId, @validUntil, @sourceId, @sourceTitle, @messageId, @embedSig, @createdAt, @createdAt)`,
      )
      .run({
        ...row,
        altQuestions: JSON.stringify(row.altQuestions),
        keywords: JSON.stringify(row.keywords),
        sourceExcerpt: row.sourceExcerpt ?? null,
        page: row.page ?? null,
        sourceId: row.sourceId ?? null,
        sourceTitle: row.sourceTitle ?? null,
        messageId: row.messageId ?? null,
      });
    const seq = Number(info.lastInsertRowid);
    if (row.status === 'active') this.writeKeywordRow(seq, row.baseId, row);
    return seq;
  }

  get(baseId: string, id: string): StoredEntry | undefined {
    const row = this.stmt('SELECT * FROM entries WHERE id = ? AND base_id = ?').get(id, baseId) as EntryRow | undefined;
    return row && toEntry(row);
  }

  getBySeq(seqs: readonly number[]): StoredEntry[] {
    if (seqs.length === 0) return [];
    const rows = this.stmt(`SELECT * FROM entries WHERE seq IN (SELECT value FROM json_each(?))`).all(JSON.stringify(seqs)) as EntryRow[];
    return rows.map(toEntry);
  }

  /** The entries of a base among `ids` (ids of other bases or unknown ids are ignored). */
  getMany(baseId: string, ids: readonly string[]): StoredEntry[] {
    const rows = this.stmt(`SELECT * FROM entries WHERE base_id = ? AND id IN (SELECT value FROM json_each(?))`).all(baseId, JSON.stringify(ids)) as EntryRow[];
    return rows.map(toEntry);
  }

  findByQuestionKey(baseId: string, key: string): StoredEntry | undefined {
    const row = this.stmt('SELECT * FROM entries WHERE base_id = ? AND question_key = ? LIMIT 1').get(baseId, key) as EntryRow | undefined;
    return row && toEntry(row);
  }

  /** Which of these question keys the base already holds. */
  existingQuestionKeys(baseId: string, keys: readonly string[]): Set<string> {
    const rows = this.db
      .prepare('SELECT DISTINCT question_key AS k FROM entries WHERE base_id = ? AND question_key IN (SELECT value FROM json_each(?))')
      .all(baseId, JSON.stringify(keys)) as Array<{ k: string }>;
    return new Set(rows.map((r) => r.k));
  }

  statuses(baseId: string): Map<number, EntryStatus> {
    const rows = this.stmt('SELECT seq, status FROM entries WHERE base_id = ?').all(baseId) as Array<{ seq: number; status: EntryStatus }>;
    return new Map(rows.map((r) => [r.seq, r.status]));
  }

  countInBase(baseId: string): number {
    return (this.stmt('SELECT COUNT(*) AS n FROM entries WHERE base_id = ?').get(baseId) as { n: number }).n;
  }

  updateText(entry: StoredEntry, changes: EntryTextChanges, updatedAt: string): void {
    this.db
      .prepare(
        `UPDATE entries SET subject = @subject, question = @question, question_key = @questionKey, alt_questions = @altQuestions, answer = @answer,
           keywords = @keywords, valid_until = @validUntil, embed_sig = @embedSig, updated_at = @updatedAt WHERE seq = @seq`,
      )
      .run({ ...changes, altQuestions: JSON.stringify(changes.altQuestions), keywords: JSON.stringify(changes.keywords), updatedAt, seq: entry.seq });
    this.deleteKeywordRow(entry.seq);
    if (entry.status === 'active') this.writeKeywordRow(entry.seq, entry.baseId, changes);
  }

  /** Sets the status (and, when asked, clears the conflict flag), keeping the keyword rows to active entries only. */
  setStatus(entries: readonly StoredEntry[], status: EntryStatus, updatedAt: string, clearConflict: boolean): void {
    const update = this.stmt(
      `UPDATE entries SET status = ?, conflict_of_id = CASE WHEN ? THEN NULL ELSE conflict_of_id END, updated_at = ? WHERE seq = ?`,
    );
    for (const entry of entries) {
      update.run(status, clearConflict ? 1 : 0, updatedAt, entry.seq);
      if (entry.status === 'active' && status !== 'active') this.deleteKeywordRow(entry.seq);
      if (entry.status !== 'active' && status === 'active') this.writeKeywordRow(entry.seq, entry.baseId, entry);
    }
  }

  clearConflict(seq: number, updatedAt: string): void {
    this.stmt('UPDATE entries SET conflict_of_id = NULL, updated_at = ? WHERE seq = ?').run(updatedAt, seq);
  }

  setSubject(entries: readonly StoredEntry[], subject: string, embedSigs: readonly string[], updatedAt: string): void {
    const update = this.stmt('UPDATE entries SET subject = ?, embed_sig = ?, updated_at = ? WHERE seq = ?');
    entries.forEach((entry, i) => {
      update.run(subject, embedSigs[i], updatedAt, entry.seq);
      if (entry.status === 'active') {
        this.deleteKeywordRow(entry.seq);
        this.writeKeywordRow(entry.seq, entry.baseId, { ...entry, subject });
      }
    });
  }

  /** Deletes entries; triggers remove their keyword rows and vectors with them. */
  delete(seqs: readonly number[]): void {
    this.stmt('DELETE FROM entries WHERE seq IN (SELECT value FROM json_each(?))').run(JSON.stringify(seqs));
  }

  recordHits(baseId: string, ids: readonly string[], at: string): void {
    this.db
      .prepare('UPDATE entries SET hit_count = hit_count + 1, last_hit_at = ? WHERE base_id = ? AND id IN (SELECT value FROM json_each(?))')
      .run(at, baseId, JSON.stringify([...new Set(ids)]));
  }

  list(baseId: string, filter: EntryFilter, now: Date): { items: StoredEntry[]; total: number } {
    const where: string[] = ['e.base_id = @baseId'];
    const params: Record<string, unknown> = { baseId };
    switch (filter.status ?? 'default') {
      case 'default':
        where.push("e.status <> 'archived'");
        break;
      case 'all':
        break;
      case 'conflicts':
        where.push('e.conflict_of_id IS NOT NULL');
        break;
      case 'expiring':
        where.push("e.status <> 'archived' AND e.valid_until IS NOT NULL AND e.valid_until <= @expiringBefore");
        params.expiringBefore = new Date(now.getTime() + ENTRY_LIMITS.expiringDays * 86_400_000).toISOString();
        break;
      default:
        where.push('e.status = @status');
        params.status = filter.status;
    }
    if (filter.q) {
      where.push("(e.question LIKE @q ESCAPE '\\' OR e.answer LIKE @q ESCAPE '\\' OR e.subject LIKE @q ESCAPE '\\')");
      params.q = likePattern(filter.q);
    }
    if (filter.subject !== undefined) {
      where.push('e.subject = @subject');
      params.subject = filter.subject;
    }
    if (filter.source !== undefined) {
      where.push('e.source_id = @source');
      params.source = filter.source;
    }
    const clause = where.join(' AND ');
    const total = (this.stmt(`SELECT COUNT(*) AS n FROM entries e WHERE ${clause}`).get(params) as { n: number }).n;
    const rows = this.db
      .prepare(`SELECT e.* FROM entries e WHERE ${clause} ORDER BY ${SORTS[filter.sort ?? 'newest']} LIMIT @limit OFFSET @offset`)
      .all({ ...params, limit: filter.limit ?? ENTRY_LIMITS.defaultListLimit, offset: filter.offset ?? 0 }) as EntryRow[];
    return { items: rows.map(toEntry), total };
  }

  /** Every non-archived entry, oldest first (export). */
  allForExport(baseId: string): StoredEntry[] {
    const rows = this.stmt("SELECT * FROM entries WHERE base_id = ? AND status <> 'archived' ORDER BY created_at ASC, seq ASC").all(baseId) as EntryRow[];
    return rows.map(toEntry);
  }

  subjects(baseId: string): Array<{ subject: string; count: number }> {
    return this.db
      .prepare("SELECT subject, COUNT(*) AS count FROM entries WHERE base_id = ? AND status <> 'archived' GROUP BY subject ORDER BY count DESC, subject COLLATE NOCASE ASC")
      .all(baseId) as Array<{ subject: string; count: number }>;
  }

  // ---- keyword index -------------------------------------------------------

  private writeKeywordRow(seq: number, baseId: string, e: { subject: string; question: string; altQuestions: readonly string[]; keywords: readonly string[]; answer: string }): void {
    this.db
      .prepare('INSERT INTO entry_fts (rowid, questions, subject, keywords, answer, base_id) VALUES (?, ?, ?, ?, ?, ?)')
      .run(seq, indexText([e.question, ...e.altQuestions].join('\n')), indexText(e.subject), indexText(e.keywords.join('\n')), indexText(e.answer), baseId);
  }

  private deleteKeywordRow(seq: number): void {
    this.stmt('DELETE FROM entry_fts WHERE rowid = ?').run(seq);
  }

  /**
   * The best `limit` active entries of the base for an OR of the terms, by bm25 (question fields weigh
   * more than the answer). `onlyBase` says every keyword row belongs to this base, so no filter is needed;
   * otherwise the base is checked through `entries` (reading FTS5's own base_id column would read each
   * matching row's whole content, answers included).
   */
  keywordSearch(baseId: string, match: string, limit: number, onlyBase: boolean): number[] {
    const sql = onlyBase
      ? 'SELECT rowid FROM entry_fts WHERE entry_fts MATCH ? ORDER BY bm25(entry_fts, 3.0, 2.0, 2.0, 1.0) LIMIT ?'
      : 'SELECT f.rowid FROM entry_fts f JOIN entries e ON e.seq = f.rowid WHERE entry_fts MATCH ? AND e.base_id = ? ORDER BY bm25(entry_fts, 3.0, 2.0, 2.0, 1.0) LIMIT ?';
    const statement = this.stmt(sql).pluck();
    return (onlyBase ? statement.all(match, limit) : statement.all(match, baseId, limit)) as number[];
  }

  activeCountInBase(baseId: string): number {
    return this.stmt("SELECT COUNT(*) FROM entries WHERE base_id = ? AND status = 'active'").pluck().get(baseId) as number;
  }

  /** The indexed (normalised) text of these entries' keyword rows. */
  keywordRows(seqs: readonly number[]): Map<number, { primary: string; answer: string }> {
    const rows = this.stmt('SELECT rowid AS seq, questions, subject, keywords, answer FROM entry_fts WHERE rowid IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(seqs)) as Array<{ seq: number; questions: string; subject: string; keywords: string; answer: string }>;
    return new Map(rows.map((r) => [r.seq, { primary: ` ${r.questions} ${r.subject} ${r.keywords} `, answer: ` ${r.answer} ` }]));
  }

  /** Documents holding each term, over the whole keyword index. */
  termDocumentCounts(terms: readonly string[]): Map<string, number> {
    const lookup = this.stmt('SELECT doc FROM entry_fts_terms WHERE term = ?').pluck();
    const out = new Map<string, number>();
    for (const term of terms) {
      const doc = lookup.get(term) as number | undefined;
      if (doc !== undefined) out.set(term, doc);
    }
    return out;
  }

  activeCount(): number {
    return (this.stmt('SELECT COUNT(*) AS n FROM entry_fts').get() as { n: number }).n;
  }

  // ---- vectors -------------------------------------------------------------

  private ensureVecTable(dim: number): string {
    const table = vecTable(dim);
    if (this.vecTables.has(dim)) return table;
    this.db.exec(`
      CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING vec0(embedding float[${dim}]);
      CREATE TRIGGER IF NOT EXISTS entry_vectors_delete_${dim} AFTER DELETE ON entry_vectors WHEN old.dim = ${dim} BEGIN
        DELETE FROM ${table} WHERE rowid = old.id;
      END;
    `);
    this.vecTables.add(dim);
    return table;
  }

  /** Replaces the entry's vectors for this model (one per embedding text). */
  replaceVectors(entrySeq: number, baseId: string, modelId: string, sig: string, vectors: readonly Float32Array[]): void {
    this.stmt('DELETE FROM entry_vectors WHERE entry_seq = ? AND model_id = ?').run(entrySeq, modelId);
    if (vectors.length === 0) return;
    const dim = vectors[0].length;
    const table = this.ensureVecTable(dim);
    const insertRow = this.stmt('INSERT INTO entry_vectors (entry_seq, base_id, model_id, dim, sig, ord) VALUES (?, ?, ?, ?, ?, ?)');
    const insertVec = this.stmt(`INSERT INTO ${table} (rowid, embedding) VALUES (?, ?)`);
    vectors.forEach((vector, ord) => {
      const id = insertRow.run(entrySeq, baseId, modelId, dim, sig, ord).lastInsertRowid;
      insertVec.run(BigInt(id), Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
    });
  }

  deleteVectorsOfModel(baseId: string, modelId: string): void {
    this.stmt('DELETE FROM entry_vectors WHERE base_id = ? AND model_id = ?').run(baseId, modelId);
  }

  /** Streams every vector of the base for the model, grouped by entry in text order (no copy of the whole set is held). */
  forEachVector(baseId: string, modelId: string, visit: (entrySeq: number, vector: Float32Array) => void): void {
    const dims = this.stmt('SELECT DISTINCT dim FROM entry_vectors WHERE base_id = ? AND model_id = ?').pluck().all(baseId, modelId) as number[];
    for (const dim of dims) {
      const table = this.ensureVecTable(dim);
      const rows = this.db
        .prepare(`SELECT v.entry_seq AS entrySeq, x.embedding AS embedding FROM entry_vectors v JOIN ${table} x ON x.rowid = v.id WHERE v.base_id = ? AND v.model_id = ? ORDER BY v.entry_seq, v.ord`)
        .iterate(baseId, modelId) as IterableIterator<{ entrySeq: number; embedding: Buffer }>;
      for (const r of rows) visit(r.entrySeq, asFloat32(r.embedding));
    }
  }

  vectorCount(baseId: string, modelId: string): number {
    return this.stmt('SELECT COUNT(*) FROM entry_vectors WHERE base_id = ? AND model_id = ?').pluck().get(baseId, modelId) as number;
  }

  /** Entries of the base whose vectors for this model are missing or stale, oldest first. */
  entriesNeedingVectors(baseId: string, modelId: string, limit: number): StoredEntry[] {
    const rows = this.db
      .prepare(
        `SELECT e.* FROM entries e WHERE e.base_id = ? AND NOT EXISTS (
           SELECT 1 FROM entry_vectors v WHERE v.entry_seq = e.seq AND v.model_id = ? AND v.sig = e.embed_sig)
         ORDER BY e.seq LIMIT ?`,
      )
      .all(baseId, modelId, limit) as EntryRow[];
    return rows.map(toEntry);
  }

  /** Counts for consistency checks and tests: vector rows, sqlite-vec rows, keyword rows. */
  indexCounts(baseId: string): { vectorRows: number; keywordRows: number } {
    const vectorRows = (this.stmt('SELECT COUNT(*) AS n FROM entry_vectors WHERE base_id = ?').get(baseId) as { n: number }).n;
    const keywordRows = (this.stmt('SELECT COUNT(*) AS n FROM entry_fts WHERE base_id = ?').get(baseId) as { n: number }).n;
    return { vectorRows, keywordRows };
  }
}
