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
const MIN_CANDIDATES = 50;

/**
 * The searchable side of a base: in-memory vectors (loaded lazily from sqlite-vec,
 * one copy per base for its current model) plus the FTS5 keyword rows, fused into one
 * ranking. Writers call the `on*` hooks after their transaction commits.
 */
export class SearchIndex {
  private readonly repo: EntriesRepository;
  private readonly vectors = new Map<string, { modelId: string; index: VectorIndex }>();
  private keywordDocuments: number | undefined;

  constructor(repo: EntriesRepository) {
    this.repo = repo;
  }

  /** The base's vectors for a model, loaded from SQLite on first use. */
  vectorIndex(baseId: string, modelId: string): VectorIndex | undefined {
    const cached = this.vectors.get(baseId);
    if (cached?.modelId === modelId) return cached.index;
    const stored = this.repo.loadVectors(baseId, modelId);
    if (stored.length === 0) {
      this.vectors.delete(baseId);
      return undefined;
    }
    const index = new VectorIndex(stored[0].vector.length, Math.max(1024, stored.length));
    const statuses = this.repo.statuses(baseId);
    let i = 0;
    while (i < stored.length) {
      const seq = stored[i].entrySeq;
      const group: Float32Array[] = [];
      while (i < stored.length && stored[i].entrySeq === seq) group.push(stored[i++].vector);
      index.set(seq, group, statuses.get(seq) ?? 'archived');
    }
    this.vectors.set(baseId, { modelId, index });
    return index;
  }

  private loaded(baseId: string, modelId: string): VectorIndex | undefined {
    const cached = this.vectors.get(baseId);
    return cached?.modelId === modelId ? cached.index : undefined;
  }

  onVectors(baseId: string, modelId: string, entrySeq: number, vectors: readonly Float32Array[], status: IndexedStatus): void {
    this.keywordDocuments = undefined;
    const index = this.loaded(baseId, modelId);
    if (index && vectors.length > 0 && vectors[0].length === index.dimensions) index.set(entrySeq, vectors, status);
    else if (!index) this.vectors.delete(baseId);
  }

  onStatus(baseId: string, entrySeq: number, status: IndexedStatus): void {
    this.keywordDocuments = undefined;
    this.vectors.get(baseId)?.index.setStatus(entrySeq, status);
  }

  onDeleted(baseId: string, entrySeqs: readonly number[]): void {
    this.keywordDocuments = undefined;
    const index = this.vectors.get(baseId)?.index;
    for (const seq of entrySeqs) index?.remove(seq);
  }

  /** Forgets the base's cached vectors (model switched, base deleted). */
  drop(baseId: string): void {
    this.keywordDocuments = undefined;
    this.vectors.delete(baseId);
  }

  /** The most similar active or draft entry, when at least `threshold` similar. */
  nearDuplicate(baseId: string, modelId: string, vector: Float32Array, threshold: number): { entrySeq: number; score: number } | undefined {
    const best = this.vectorIndex(baseId, modelId)?.nearest(vector, 1, 'live')[0];
    return best && best.score >= threshold ? best : undefined;
  }

  search(baseId: string, modelId: string, query: string, queryVector: Float32Array | undefined, topK: number, method: SearchMethod = 'hybrid'): RankedEntry[] {
    const want = Math.max(MIN_CANDIDATES, topK * 5);
    const index = method === 'keyword' ? undefined : this.vectorIndex(baseId, modelId);
    const cosines = new Map<number, number>();
    if (index && queryVector) {
      for (const hit of index.nearest(queryVector, want)) cosines.set(hit.entrySeq, hit.score);
    }
    const terms = method === 'vector' ? [] : queryTerms(query);
    const keywordOrder = terms.length > 0 ? this.repo.keywordSearch(baseId, ftsOrExpression(terms), want) : [];
    const candidates = [...new Set([...cosines.keys(), ...keywordOrder])];
    if (candidates.length === 0) return [];

    const documents = (this.keywordDocuments ??= this.repo.activeCount());
    const counts = this.repo.termDocumentCounts(terms);
    const queryIdf = new Map(terms.map((t) => [t, idf(documents, counts.get(t) ?? 0)]));
    const rows = terms.length > 0 ? this.repo.keywordRows(candidates) : new Map<number, { primary: string; answer: string }>();

    const ranked: Array<{ seq: number; vectorScore: number; keywordScore: number; score: number; keywordRank: number }> = [];
    const keywordRank = new Map(keywordOrder.map((seq, i) => [seq, i]));
    for (const seq of candidates) {
      const vectorScore = cosines.get(seq) ?? (index && queryVector ? (index.bestScore(queryVector, seq) ?? 0) : 0);
      const row = rows.get(seq);
      const keywordScore = row ? keywordEvidence(queryIdf, { primary: new Set(row.primary.split(' ')), answer: new Set(row.answer.split(' ')) }) : 0;
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
