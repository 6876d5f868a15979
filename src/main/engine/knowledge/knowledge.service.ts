import { createHash } from 'node:crypto';
import { stringify } from 'csv-stringify/sync';
import type { CreditsService } from '../credits/credits.service.ts';
import { embeddingCredits } from '../credits/pricing.ts';
import type { Embedder, EmbeddingModels } from '../embeddings/embedder.types.ts';
import type { Principal } from '../identity/identity.types.ts';
import type { Clock } from '../shared/clock.ts';
import { badRequest, fieldError, notFound } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import type { Logger } from '../shared/logger.ts';
import type { Db } from '../storage/database.ts';
import { BasesRepository } from './bases.repository.ts';
import type { BasesService } from './bases.service.ts';
import { EntriesRepository, publicEntry, type NewEntryRow, type StoredEntry } from './entries.repository.ts';
import { DEFAULT_SUBJECT, ENTRY_LIMITS, embeddingTexts, questionKey, type Entry, type EntryFilter, type EntryStatus } from './entries.types.ts';
import type { KnowledgeApi, KnowledgeWriteApi, NewEntryInput, SearchHit, SearchResult } from './knowledge.api.ts';
import { LIMITS, type KnowledgeBase } from './knowledge.types.ts';
import { SearchIndex, type SearchMethod } from './search-index.ts';

export interface EntryPatch {
  subject?: string;
  question?: string;
  answer?: string;
  altQuestions?: string[];
  keywords?: string[];
  validUntil?: string | null;
  status?: EntryStatus;
  resolveConflict?: 'keep' | 'replace';
}

export type BulkAction = 'approve' | 'activate' | 'archive' | 'delete' | 'setSubject';

export interface ImportRow {
  subject?: string;
  question: string;
  answer: string;
  altQuestions?: string[];
  keywords?: string[];
  validUntil?: string | null;
}

export interface ImportResult {
  inserted: number;
  duplicates: number;
  conflicts: number;
}

export interface KnowledgeServiceDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  bases: BasesService;
  credits: CreditsService;
  embeddings: EmbeddingModels;
}

/** Entries embedded per background pass (setSubject, model change). */
const INDEXER_BATCH = 128;

/** A hash of the texts an entry wants embedded; vectors carrying another hash are stale. */
function signature(texts: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(texts)).digest('base64url').slice(0, 22);
}

/**
 * Entries of a knowledge base: their rows, their index (keyword and vector, written
 * in the same transaction), hybrid search, bulk actions, import and export.
 * Credits are checked before any embedding work and recorded after the write.
 */
export class KnowledgeService implements KnowledgeApi, KnowledgeWriteApi {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly bases: BasesService;
  private readonly basesRepo: BasesRepository;
  private readonly credits: CreditsService;
  private readonly embeddings: EmbeddingModels;
  private readonly repo: EntriesRepository;
  readonly index: SearchIndex;
  private readonly jobs = new Map<string, Promise<void>>();
  private readonly rerun = new Set<string>();
  private disposed = false;

  constructor(deps: KnowledgeServiceDeps) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.logger = deps.logger;
    this.bases = deps.bases;
    this.basesRepo = new BasesRepository(deps.db);
    this.credits = deps.credits;
    this.embeddings = deps.embeddings;
    this.repo = new EntriesRepository(deps.db);
    this.index = new SearchIndex(this.repo);
  }

  /** Resumes background indexing the app did not finish before it stopped. */
  resumeIndexing(): void {
    for (const baseId of this.basesRepo.unfinishedIndexing()) this.scheduleIndexing(baseId);
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  // ---- search ----------------------------------------------------------------

  async search(principal: Principal, kbId: string, query: string, topK: number): Promise<SearchResult> {
    const base = this.bases.require(principal, kbId);
    return this.searchBase(base, query, topK, 'hybrid');
  }

  /** Search by any method (eval compares them); `hybrid` is what the API serves. */
  async searchBase(base: KnowledgeBase, query: string, topK: number, method: SearchMethod): Promise<SearchResult> {
    let vector: Float32Array | undefined;
    let embeddingTokens = 0;
    if (method !== 'keyword') {
      const embedder = await this.embeddings.get(base.embeddingModel);
      const result = await embedder.embed([query], 'query');
      vector = result.vectors[0];
      embeddingTokens = result.tokens;
    }
    return { hits: this.searchWithVector(base, query, vector, topK, method), embeddingTokens };
  }

  /** The retrieval itself, once the query is embedded (bench measures this). */
  searchWithVector(base: Pick<KnowledgeBase, 'id' | 'embeddingModel'>, query: string, vector: Float32Array | undefined, topK: number, method: SearchMethod = 'hybrid'): SearchHit[] {
    return this.index.search(base.id, base.embeddingModel, query, vector, topK, method).map((r) => ({
      id: r.entry.id,
      subject: r.entry.subject,
      question: r.entry.question,
      answer: r.entry.answer,
      vectorScore: round(r.vectorScore),
      score: round(r.score),
    }));
  }

  recordHits(kbId: string, entryIds: readonly string[]): void {
    if (entryIds.length === 0) return;
    this.repo.recordHits(kbId, entryIds, this.now());
  }

  // ---- reading ---------------------------------------------------------------

  listEntries(principal: Principal, kbId: string, filter: EntryFilter): { items: Entry[]; total: number } {
    this.bases.require(principal, kbId);
    const { items, total } = this.repo.list(kbId, filter, this.clock.now());
    return { items: items.map(publicEntry), total };
  }

  subjects(principal: Principal, kbId: string): Array<{ subject: string; count: number }> {
    this.bases.require(principal, kbId);
    return this.repo.subjects(kbId);
  }

  getEntry(principal: Principal, kbId: string, id: string): Entry {
    this.bases.require(principal, kbId);
    return publicEntry(this.requireEntry(kbId, id));
  }

  private requireEntry(kbId: string, id: string): StoredEntry {
    const entry = this.repo.get(kbId, id);
    if (!entry) throw notFound(`Entry ${id}`);
    return entry;
  }

  // ---- adding ----------------------------------------------------------------

  async addEntry(principal: Principal, kbId: string, input: NewEntryInput): Promise<{ id: string; status: string; conflicts: 0 | 1 }> {
    const entry = await this.createEntry(principal, kbId, input);
    return { id: entry.id, status: entry.status, conflicts: entry.conflicts };
  }

  /** POST /bases/{kbId}/entries: active and searchable at once, or a draft when it nearly duplicates an entry. */
  async createEntry(principal: Principal, kbId: string, input: NewEntryInput): Promise<Entry & { conflicts: 0 | 1 }> {
    const base = this.bases.require(principal, kbId);
    const key = questionKey(input.question);
    this.assertQuestionFree(kbId, key);
    this.credits.assertCanSpend(base.orgId);
    const altQuestions = input.altQuestions ?? [];
    const texts = embeddingTexts({ subject: input.subject, question: input.question, altQuestions });
    const embedder = await this.embeddings.get(base.embeddingModel);
    const { vectors, tokens } = await embedder.embed(texts, 'passage');

    const now = this.now();
    const row: NewEntryRow = {
      id: newId(),
      baseId: kbId,
      subject: input.subject,
      question: input.question,
      questionKey: key,
      altQuestions,
      answer: input.answer,
      keywords: input.keywords ?? [],
      status: 'active',
      conflictOfId: null,
      validUntil: input.validUntil ?? null,
      embedSig: signature(texts),
      createdAt: now,
    };
    const seq = this.db
      .transaction(() => {
        // Checked again inside the write: another add may have landed while this one was embedding.
        this.assertQuestionFree(kbId, key);
        const similar = this.index.nearDuplicate(kbId, base.embeddingModel, vectors[0], ENTRY_LIMITS.nearDuplicate);
        if (similar) {
          row.status = 'draft';
          row.conflictOfId = this.repo.getBySeq([similar.entrySeq])[0]?.id ?? null;
        }
        const inserted = this.repo.insert(row);
        this.repo.replaceVectors(inserted, kbId, base.embeddingModel, row.embedSig, vectors);
        this.basesRepo.markIndexed(kbId, now);
        this.bases.touch(kbId);
        return inserted;
      })
      .immediate();
    this.index.onVectors(kbId, base.embeddingModel, seq, vectors, row.status);
    this.spendEmbedding(base.orgId, 'entry.add', embedder, tokens);
    const stored = this.repo.getBySeq([seq])[0];
    return { ...publicEntry(stored), conflicts: row.status === 'draft' ? 1 : 0 };
  }

  private assertQuestionFree(kbId: string, key: string, exceptSeq?: number): void {
    const existing = this.repo.findByQuestionKey(kbId, key);
    if (existing && existing.seq !== exceptSeq) {
      throw badRequest('An entry with the same question already exists in this base.', { question: ['An entry with this question already exists'] }, { entryId: existing.id });
    }
  }

  private spendEmbedding(workspaceId: string, call: string, embedder: Embedder, tokens: number): void {
    if (tokens <= 0) return;
    this.credits.spend(workspaceId, { call, model: embedder.modelId, embeddingTokens: tokens, credits: embeddingCredits(tokens) });
  }

  // ---- changing --------------------------------------------------------------

  async patchEntry(principal: Principal, kbId: string, id: string, patch: EntryPatch): Promise<Entry> {
    const base = this.bases.require(principal, kbId);
    const entry = this.requireEntry(kbId, id);
    if (patch.resolveConflict && !entry.conflictOfId) {
      throw fieldError('resolveConflict', 'Only an entry flagged as a conflict (conflictOfId set) can be resolved.');
    }
    if (patch.resolveConflict && patch.status) throw fieldError('resolveConflict', 'Send either status or resolveConflict, not both.');

    const next = {
      subject: patch.subject ?? entry.subject,
      question: patch.question ?? entry.question,
      altQuestions: patch.altQuestions ?? entry.altQuestions,
      answer: patch.answer ?? entry.answer,
      keywords: patch.keywords ?? entry.keywords,
      validUntil: patch.validUntil !== undefined ? patch.validUntil : entry.validUntil,
    };
    const key = questionKey(next.question);
    if (patch.question !== undefined) this.assertQuestionFree(kbId, key, entry.seq);
    const textChanged =
      next.subject !== entry.subject ||
      next.question !== entry.question ||
      next.answer !== entry.answer ||
      JSON.stringify(next.altQuestions) !== JSON.stringify(entry.altQuestions) ||
      JSON.stringify(next.keywords) !== JSON.stringify(entry.keywords);
    const fieldsChanged = textChanged || next.validUntil !== entry.validUntil;
    const texts = embeddingTexts(next);
    const sig = signature(texts);
    const reembed = sig !== entry.embedSig;

    let embedded: { vectors: Float32Array[]; tokens: number; embedder: Embedder } | undefined;
    if (textChanged) this.credits.assertCanSpend(base.orgId);
    if (reembed) {
      const embedder = await this.embeddings.get(base.embeddingModel);
      const result = await embedder.embed(texts, 'passage');
      embedded = { ...result, embedder };
    }

    const now = this.now();
    let archivedSeq: number | undefined;
    const status = this.db
      .transaction(() => {
        const current = this.requireEntry(kbId, id);
        if (patch.question !== undefined) this.assertQuestionFree(kbId, key, current.seq);
        if (fieldsChanged) this.repo.updateText(current, { ...next, questionKey: key, embedSig: sig }, now);
        if (embedded) this.repo.replaceVectors(current.seq, kbId, base.embeddingModel, sig, embedded.vectors);
        let status = current.status;
        if (patch.status && patch.status !== current.status) {
          this.repo.setStatus([{ ...current, ...next }], patch.status, now, false);
          status = patch.status;
        }
        if (patch.resolveConflict === 'keep') this.repo.clearConflict(current.seq, now);
        if (patch.resolveConflict === 'replace') {
          const older = current.conflictOfId ? this.repo.get(kbId, current.conflictOfId) : undefined;
          if (older && older.status !== 'archived') {
            this.repo.setStatus([older], 'archived', now, false);
            archivedSeq = older.seq;
          }
          this.repo.setStatus([{ ...current, ...next }], 'active', now, true);
          status = 'active';
        }
        if (embedded) this.basesRepo.markIndexed(kbId, now);
        this.bases.touch(kbId);
        return status;
      })
      .immediate();

    if (embedded) this.index.onVectors(kbId, base.embeddingModel, entry.seq, embedded.vectors, status);
    this.index.onStatus(kbId, entry.seq, status);
    if (archivedSeq !== undefined) this.index.onStatus(kbId, archivedSeq, 'archived');
    if (embedded) this.spendEmbedding(base.orgId, 'entry.edit', embedded.embedder, embedded.tokens);
    return publicEntry(this.requireEntry(kbId, id));
  }

  deleteEntry(principal: Principal, kbId: string, id: string): void {
    this.bases.require(principal, kbId);
    const entry = this.requireEntry(kbId, id);
    this.db.transaction(() => {
      this.repo.delete([entry.seq]);
      this.bases.touch(kbId);
    })();
    this.index.onDeleted(kbId, [entry.seq]);
  }

  bulk(principal: Principal, kbId: string, ids: readonly string[], action: BulkAction, subject?: string): { affected: number } {
    this.bases.require(principal, kbId);
    const found = this.repo.getMany(kbId, ids);
    const now = this.now();
    let targets = found;
    this.db
      .transaction(() => {
        switch (action) {
          case 'approve':
            targets = found.filter((e) => e.status === 'draft');
            this.repo.setStatus(targets, 'active', now, true);
            break;
          case 'activate':
            this.repo.setStatus(found, 'active', now, false);
            break;
          case 'archive':
            this.repo.setStatus(found, 'archived', now, false);
            break;
          case 'delete':
            this.repo.delete(found.map((e) => e.seq));
            break;
          case 'setSubject': {
            if (!subject) throw fieldError('subject', 'subject is required for setSubject');
            const sigs = found.map((e) => signature(embeddingTexts({ ...e, subject })));
            this.repo.setSubject(found, subject, sigs, now);
            if (found.length > 0) this.basesRepo.startIndexing(kbId, undefined);
            break;
          }
        }
        if (targets.length > 0) this.bases.touch(kbId);
      })
      .immediate();
    this.index.keywordChanged();
    if (action === 'delete') this.index.onDeleted(kbId, found.map((e) => e.seq));
    else if (action === 'approve' || action === 'activate') for (const e of targets) this.index.onStatus(kbId, e.seq, 'active');
    else if (action === 'archive') for (const e of targets) this.index.onStatus(kbId, e.seq, 'archived');
    else if (action === 'setSubject' && found.length > 0) this.scheduleIndexing(kbId);
    return { affected: targets.length };
  }

  // ---- import and export -----------------------------------------------------

  /** All or nothing: every row is embedded first, then one transaction writes them all. */
  async importRows(principal: Principal, kbId: string, rows: readonly ImportRow[], call = 'import'): Promise<ImportResult> {
    const base = this.bases.require(principal, kbId);
    const existing = this.repo.existingQuestionKeys(kbId, rows.map((r) => questionKey(r.question)));
    const seen = new Set<string>();
    const fresh: Array<ImportRow & { key: string; subject: string }> = [];
    for (const row of rows) {
      const key = questionKey(row.question);
      if (existing.has(key) || seen.has(key)) continue;
      seen.add(key);
      fresh.push({ ...row, key, subject: row.subject?.trim() ? row.subject : DEFAULT_SUBJECT });
    }
    let duplicates = rows.length - fresh.length;
    this.assertRoom(kbId, fresh.length);
    if (fresh.length === 0) return { inserted: 0, duplicates, conflicts: 0 };
    this.credits.assertCanSpend(base.orgId);

    const embedder = await this.embeddings.get(base.embeddingModel);
    const textsPerRow = fresh.map((r) => embeddingTexts({ subject: r.subject, question: r.question, altQuestions: r.altQuestions ?? [] }));
    const { vectors, tokens } = await embedder.embed(textsPerRow.flat(), 'passage');

    const now = this.now();
    const written: Array<{ seq: number; vectors: Float32Array[]; status: EntryStatus }> = [];
    let conflicts = 0;
    this.db
      .transaction(() => {
        // Checked again inside the write, against what landed while the rows were embedding.
        const landed = this.repo.existingQuestionKeys(kbId, fresh.map((r) => r.key));
        const batchVectors: Array<{ id: string; vector: Float32Array }> = [];
        let offset = 0;
        const accepted = fresh.filter((r) => !landed.has(r.key));
        duplicates += fresh.length - accepted.length;
        this.assertRoom(kbId, accepted.length);
        for (const [i, row] of fresh.entries()) {
          const own = vectors.slice(offset, offset + textsPerRow[i].length);
          offset += textsPerRow[i].length;
          if (landed.has(row.key)) continue;
          const id = newId();
          let conflictOfId: string | null = null;
          const similar = this.index.nearDuplicate(kbId, base.embeddingModel, own[0], ENTRY_LIMITS.nearDuplicate);
          if (similar) conflictOfId = this.repo.getBySeq([similar.entrySeq])[0]?.id ?? null;
          else conflictOfId = nearestInBatch(batchVectors, own[0]);
          const status: EntryStatus = conflictOfId ? 'draft' : 'active';
          if (conflictOfId) conflicts++;
          const seq = this.repo.insert({
            id,
            baseId: kbId,
            subject: row.subject,
            question: row.question,
            questionKey: row.key,
            altQuestions: row.altQuestions ?? [],
            answer: row.answer,
            keywords: row.keywords ?? [],
            status,
            conflictOfId,
            validUntil: row.validUntil ?? null,
            embedSig: signature(textsPerRow[i]),
            createdAt: now,
          });
          this.repo.replaceVectors(seq, kbId, base.embeddingModel, signature(textsPerRow[i]), own);
          batchVectors.push({ id, vector: own[0] });
          written.push({ seq, vectors: own, status });
        }
        this.basesRepo.markIndexed(kbId, now);
        this.bases.touch(kbId);
      })
      .immediate();
    for (const w of written) this.index.onVectors(kbId, base.embeddingModel, w.seq, w.vectors, w.status);
    this.spendEmbedding(base.orgId, call, embedder, tokens);
    return { inserted: written.length, duplicates, conflicts };
  }

  private assertRoom(kbId: string, adding: number): void {
    const count = this.repo.countInBase(kbId);
    if (count + adding > LIMITS.entriesPerBase) {
      throw badRequest(
        `The base holds ${count} entries; adding ${adding} would pass the limit of ${LIMITS.entriesPerBase}.`,
        { rows: [`A base holds at most ${LIMITS.entriesPerBase} entries`] },
        { entryCount: count, limit: LIMITS.entriesPerBase },
      );
    }
  }

  exportEntries(principal: Principal, kbId: string): Entry[] {
    this.bases.require(principal, kbId);
    return this.repo.allForExport(kbId).map(publicEntry);
  }

  exportCsv(principal: Principal, kbId: string): string {
    const entries = this.exportEntries(principal, kbId);
    return stringify(
      entries.map((e) => [e.subject, e.question, e.answer, e.altQuestions.join(MULTI_VALUE_SEPARATOR), e.keywords.join(MULTI_VALUE_SEPARATOR), e.status, e.validUntil ?? '']),
      { header: true, columns: ['subject', 'question', 'answer', 'altQuestions', 'keywords', 'status', 'validUntil'], quoted_match: /[\r\n",]/, record_delimiter: 'windows' },
    );
  }

  // ---- embedding model and background indexing -------------------------------

  /** Switches the base to another model: re-embeds in the background; search uses the old vectors until the new set is complete. */
  changeModel(principal: Principal, kbId: string, modelId: string): void {
    const base = this.bases.require(principal, kbId);
    if (!this.embeddings.list().some((m) => m.id === modelId)) {
      throw fieldError('embeddingModel', `Unknown embedding model ${modelId}. Installed: ${this.embeddings.list().map((m) => m.id).join(', ')}`);
    }
    const state = this.basesRepo.indexState(kbId);
    if (modelId === base.embeddingModel && !state?.pendingEmbeddingModel) return;
    this.basesRepo.startIndexing(kbId, modelId === base.embeddingModel ? null : modelId);
    this.scheduleIndexing(kbId);
  }

  /** Runs (or queues one more run of) the base's indexer. */
  scheduleIndexing(kbId: string): void {
    if (this.disposed) return;
    if (this.jobs.has(kbId)) {
      this.rerun.add(kbId);
      return;
    }
    const job = this.runIndexer(kbId)
      .catch((error: unknown) => this.logger.error(`Background indexing of base ${kbId} failed`, { error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        this.jobs.delete(kbId);
        if (this.rerun.delete(kbId)) this.scheduleIndexing(kbId);
      });
    this.jobs.set(kbId, job);
  }

  /** Resolves when no background indexing is running (tests, eval, dispose). */
  async idle(): Promise<void> {
    while (this.jobs.size > 0) await Promise.all([...this.jobs.values()]);
  }

  private async runIndexer(kbId: string): Promise<void> {
    for (;;) {
      if (this.disposed) return;
      const state = this.basesRepo.indexState(kbId);
      if (!state) return;
      const target = state.pendingEmbeddingModel ?? state.embeddingModel;
      const batch = this.repo.entriesNeedingVectors(kbId, target, INDEXER_BATCH);
      if (batch.length === 0) {
        const finished = this.db
          .transaction(() => {
            if (this.repo.entriesNeedingVectors(kbId, target, 1).length > 0) return false;
            const switching = state.pendingEmbeddingModel && state.pendingEmbeddingModel !== state.embeddingModel ? state.pendingEmbeddingModel : null;
            if (switching) this.repo.deleteVectorsOfModel(kbId, state.embeddingModel);
            this.basesRepo.finishIndexing(kbId, this.now(), switching);
            return true;
          })
          .immediate();
        if (finished) {
          this.index.drop(kbId);
          return;
        }
        continue;
      }
      const embedder = await this.embeddings.get(target);
      const texts = batch.map((e) => embeddingTexts(e));
      const { vectors } = await embedder.embed(texts.flat(), 'passage');
      const written: Array<{ seq: number; vectors: Float32Array[]; status: EntryStatus }> = [];
      this.db
        .transaction(() => {
          let offset = 0;
          const current = new Map(this.repo.getBySeq(batch.map((e) => e.seq)).map((e) => [e.seq, e]));
          batch.forEach((e, i) => {
            const own = vectors.slice(offset, offset + texts[i].length);
            offset += texts[i].length;
            const now = current.get(e.seq);
            // Changed or deleted while embedding: the next pass picks up its new text.
            if (!now || now.embedSig !== e.embedSig) return;
            this.repo.replaceVectors(e.seq, kbId, target, e.embedSig, own);
            written.push({ seq: e.seq, vectors: own, status: now.status });
          });
          this.basesRepo.markIndexed(kbId, this.now());
        })
        .immediate();
      for (const w of written) this.index.onVectors(kbId, target, w.seq, w.vectors, w.status);
    }
  }

  /** Deletes a base with everything in it (app sessions only). */
  deleteBase(principal: Principal, kbId: string): void {
    this.bases.delete(principal, kbId);
    this.index.drop(kbId);
  }

  /** Counts the index holds for a base (tests prove it matches the entries). */
  indexCounts(kbId: string): { vectorRows: number; keywordRows: number } {
    return this.repo.indexCounts(kbId);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.idle();
  }
}

export const MULTI_VALUE_SEPARATOR = ' | ';

function round(value: number): number {
  return Math.round(value * 1e4) / 1e4;
}

/** Within one import: the id of an earlier row at least as similar as the near-duplicate threshold. */
function nearestInBatch(batch: ReadonlyArray<{ id: string; vector: Float32Array }>, vector: Float32Array): string | null {
  for (const other of batch) {
    let s = 0;
    for (let j = 0; j < vector.length; j++) s += other.vector[j] * vector[j];
    if (s >= ENTRY_LIMITS.nearDuplicate) return other.id;
  }
  return null;
}
