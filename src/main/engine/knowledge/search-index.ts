import { fuse, idf, keywordEvidence } from '../retrieval/fusion.ts';
import { ftsOrExpression, queryTerms } from '../retrieval/text.ts';
import { VectorIndex, type IndexedStatus } from '../retrieval/vector-index.ts';
import type { EntriesRepository, StoredEntry } from './entries.repository.ts';

export type SearchMethod = 'hybrid' | 'vector' | 'keyword';

export interface RankedEntry {
  entry: StoredEntry;
  vectorScore: number;
  keywordScore: number;
  score: number;
}

/** How many candidates each side (vector, keyword) proposes before fusion. */
const MIN_CANDIDATES = 30;

/**
 * In hybrid search the keyword side only proposes candidates (every candidate's keyword
 * evidence is then computed over all query terms), so its MATCH uses the four rarest terms
 * the index knows. Words such as "how" or "the" would otherwise make FTS5 rank most of a
 * large base on every query.
 */
const MATCH_TERMS = 4;
function selectiveTerms(terms: readonly string[], counts: ReadonlyMap<string, number>): string[] {
  return terms
    .filter((t) => (counts.get(t) ?? 0) > 0)
    .sort((a, b) => counts.get(a)! - counts.get(b)!)
    .slice(0, MATCH_TERMS);
}

/**
 * The searchable side of a base: in-memory vectors (loaded lazily from sqlite-vec,
 * one copy per base for its current model) plus the FTS5 keyword rows, fused into one
 * ranking. Writers call the `on*` hooks after their transaction commits.
 */
export class SearchIndex {
  private readonly repo: EntriesRepository;
  private readonly vectors = new Map<string, { modelId: string; index: VectorIndex }>();
  /** Keyword statistics over the whole FTS index, cached until the next write. */
  private keywordDocuments: number | undefined;
  private readonly termCounts = new Map<string, number>();
  private readonly activeInBase = new Map<string, number>();

  constructor(repo: EntriesRepository) {
    this.repo = repo;
  }

  /** The base's vectors for a model, loaded from SQLite on first use. */
  vectorIndex(baseId: string, modelId: string): VectorIndex | undefined {
    const cached = this.vectors.get(baseId);
    if (cached?.modelId === modelId) return cached.index;
    const rows = this.repo.vectorCount(baseId, modelId);
    if (rows === 0) {
      this.vectors.delete(baseId);
      return undefined;
    }
    const statuses = this.repo.statuses(baseId);
    let index: VectorIndex | undefined;
    let seq = -1;
    let group: Float32Array[] = [];
    const flush = (): void => {
      if (index && group.length > 0) index.set(seq, group, statuses.get(seq) ?? 'archived');
      group = [];
    };
    this.repo.forEachVector(baseId, modelId, (entrySeq, vector) => {
      index ??= new VectorIndex(vector.length, Math.max(1024, rows));
      if (entrySeq !== seq) flush();
      seq = entrySeq;
      // A view on the row's blob; the index copies the numbers into its matrix.
      group.push(vector);
    });
    flush();
    if (!index) return undefined;
    this.vectors.set(baseId, { modelId, index });
    return index;
  }

  private loaded(baseId: string, modelId: string): VectorIndex | undefined {
    const cached = this.vectors.get(baseId);
    return cached?.modelId === modelId ? cached.index : undefined;
  }

  onVectors(baseId: string, modelId: string, entrySeq: number, vectors: readonly Float32Array[], status: IndexedStatus): void {
    this.keywordChanged();
    const index = this.loaded(baseId, modelId);
    if (index && vectors.length > 0 && vectors[0].length === index.dimensions) index.set(entrySeq, vectors, status);
    else if (!index) this.vectors.delete(baseId);
  }

  onStatus(baseId: string, entrySeq: number, status: IndexedStatus): void {
    this.keywordChanged();
    this.vectors.get(baseId)?.index.setStatus(entrySeq, status);
  }

  onDeleted(baseId: string, entrySeqs: readonly number[]): void {
    this.keywordChanged();
    const index = this.vectors.get(baseId)?.index;
    for (const seq of entrySeqs) index?.remove(seq);
  }

  /** Forgets the base's cached vectors (model switched, base deleted). */
  drop(baseId: string): void {
    this.keywordChanged();
    this.vectors.delete(baseId);
  }

  /** Any write to the keyword rows (text, status, delete) makes the cached statistics stale. */
  keywordChanged(): void {
    this.keywordDocuments = undefined;
    this.termCounts.clear();
    this.activeInBase.clear();
  }

  private documentCounts(terms: readonly string[]): Map<string, number> {
    const missing = terms.filter((t) => !this.termCounts.has(t));
    if (missing.length > 0) {
      if (this.termCounts.size > 100_000) this.termCounts.clear();
      const fetched = this.repo.termDocumentCounts(missing);
      for (const t of missing) this.termCounts.set(t, fetched.get(t) ?? 0);
    }
    return new Map(terms.map((t) => [t, this.termCounts.get(t)!]));
  }

  /** The most similar active or draft entry, when at least `threshold` similar. */
  nearDuplicate(baseId: string, modelId: string, vector: Float32Array, threshold: number): { entrySeq: number; score: number } | undefined {
    const best = this.vectorIndex(baseId, modelId)?.nearest(vector, 1, 'live')[0];
    return best && best.score >= threshold ? best : undefined;
  }

  search(baseId: string, modelId: string, query: string, queryVector: Float32Array | undefined, topK: number, method: SearchMethod = 'hybrid'): RankedEntry[] {
    const want = Math.max(MIN_CANDIDATES, topK * 3);
    const index = method === 'keyword' ? undefined : this.vectorIndex(baseId, modelId);
    const cosines = new Map<number, number>();
    if (index && queryVector) {
      for (const hit of index.nearest(queryVector, want)) cosines.set(hit.entrySeq, hit.score);
    }
    const terms = method === 'vector' ? [] : queryTerms(query);
    const counts = this.documentCounts(terms);
    const documents = (this.keywordDocuments ??= this.repo.activeCount());
    const matchTerms = method === 'keyword' ? terms : selectiveTerms(terms, counts);
    let keywordOrder: number[] = [];
    if (matchTerms.length > 0) {
      const inBase = this.activeInBase.get(baseId) ?? this.activeInBase.set(baseId, this.repo.activeCountInBase(baseId)).get(baseId)!;
      // Hybrid candidates come from the question-side columns: answers are long, and matching them would make FTS5
      // rank far more rows; the answer still counts in every candidate's keyword evidence.
      const match = method === 'keyword' ? ftsOrExpression(matchTerms) : `{questions subject keywords} : (${ftsOrExpression(matchTerms)})`;
      keywordOrder = this.repo.keywordSearch(baseId, match, want, inBase === documents);
    }
    const candidates = [...new Set([...cosines.keys(), ...keywordOrder])];
    if (candidates.length === 0) return [];

    const queryIdf = new Map(terms.map((t) => [t, idf(documents, counts.get(t) ?? 0)]));
    const rows = terms.length > 0 ? this.repo.keywordRows(candidates) : new Map<number, { primary: string; answer: string }>();

    const ranked: Array<{ seq: number; vectorScore: number; keywordScore: number; score: number; keywordRank: number }> = [];
    const keywordRank = new Map(keywordOrder.map((seq, i) => [seq, i]));
    for (const seq of candidates) {
      const vectorScore = cosines.get(seq) ?? (index && queryVector ? (index.bestScore(queryVector, seq) ?? 0) : 0);
      const row = rows.get(seq);
      const keywordScore = row ? keywordEvidence(queryIdf, row) : 0;
      const score = method === 'vector' ? Math.max(0, vectorScore) : method === 'keyword' ? keywordScore : fuse(vectorScore, keywordScore);
      ranked.push({ seq, vectorScore, keywordScore, score, keywordRank: keywordRank.get(seq) ?? Infinity });
    }
    // Keyword-only keeps bm25's order (the classic baseline); the others order by their score.
    if (method === 'keyword') ranked.sort((a, b) => a.keywordRank - b.keywordRank);
    else ranked.sort((a, b) => b.score - a.score || b.vectorScore - a.vectorScore);
    const top = ranked.slice(0, topK);
    const entries = new Map(this.repo.getBySeq(top.map((r) => r.seq)).map((e) => [e.seq, e]));
    const out: RankedEntry[] = [];
    for (const r of top) {
      const entry = entries.get(r.seq);
      if (entry && entry.status === 'active') out.push({ entry, vectorScore: r.vectorScore, keywordScore: r.keywordScore, score: r.score });
    }
    return out;
  }

  /** Memory held by a base's in-memory vectors (bench). */
  vectorBytes(baseId: string): number {
    return this.vectors.get(baseId)?.index.byteSize ?? 0;
  }
}
