/**
 * An in-memory copy of one base's vectors for one model, loaded lazily from
 * SQLite (sqlite-vec stays the durable store) and kept in step on every write
 * after the write's transaction commits.
 *
 * Why: a sqlite-vec KNN over 20 000 x 384 floats took 11.5 ms on a file database;
 * a plain Float32Array scan of the same numbers takes about 3-4 ms, and searches
 * can skip inactive entries and group an entry's texts (question, alternatives)
 * so it matches through its best one.
 */
export type IndexedStatus = 'active' | 'draft' | 'archived';

export class VectorIndex {
  readonly dimensions: number;
  private matrix: Float32Array;
  /** Entry seq of each row; -1 marks a free row. */
  private owners: Int32Array;
  private rowsUsed = 0;
  private readonly free: number[] = [];
  private readonly rowsByEntry = new Map<number, number[]>();
  /** Entries searched by default (active), and entries that count as existing for near-duplicates (active or draft). */
  private readonly activeEntries = new Set<number>();
  private readonly liveEntries = new Set<number>();

  constructor(dimensions: number, capacity = 1024) {
    this.dimensions = dimensions;
    this.matrix = new Float32Array(capacity * dimensions);
    this.owners = new Int32Array(capacity).fill(-1);
  }

  get entryCount(): number {
    return this.rowsByEntry.size;
  }

  get byteSize(): number {
    return this.matrix.byteLength + this.owners.byteLength;
  }

  has(entrySeq: number): boolean {
    return this.rowsByEntry.has(entrySeq);
  }

  /** Replaces every vector of an entry. */
  set(entrySeq: number, vectors: readonly Float32Array[], status: IndexedStatus): void {
    this.remove(entrySeq);
    const rows: number[] = [];
    for (const vector of vectors) {
      const row = this.allocate();
      this.matrix.set(vector, row * this.dimensions);
      this.owners[row] = entrySeq;
      rows.push(row);
    }
    this.rowsByEntry.set(entrySeq, rows);
    this.setStatus(entrySeq, status);
  }

  setStatus(entrySeq: number, status: IndexedStatus): void {
    const known = this.rowsByEntry.has(entrySeq);
    if (known && status === 'active') this.activeEntries.add(entrySeq);
    else this.activeEntries.delete(entrySeq);
    if (known && status !== 'archived') this.liveEntries.add(entrySeq);
    else this.liveEntries.delete(entrySeq);
  }

  remove(entrySeq: number): void {
    const rows = this.rowsByEntry.get(entrySeq);
    if (!rows) return;
    for (const row of rows) {
      this.owners[row] = -1;
      this.free.push(row);
    }
    this.rowsByEntry.delete(entrySeq);
    this.activeEntries.delete(entrySeq);
    this.liveEntries.delete(entrySeq);
  }

  /** Cosine of the query to the entry's best text (vectors are L2-normalised), or null when the entry has none. */
  bestScore(query: Float32Array, entrySeq: number): number | null {
    const rows = this.rowsByEntry.get(entrySeq);
    if (!rows || rows.length === 0) return null;
    let best = -Infinity;
    for (const row of rows) best = Math.max(best, this.dot(query, row));
    return best;
  }

  /**
   * The `k` best entries by their best text, among active entries (search)
   * or among active and draft entries (near-duplicate checks, `among: 'live'`).
   */
  nearest(query: Float32Array, k: number, among: 'active' | 'live' = 'active'): Array<{ entrySeq: number; score: number }> {
    // An entry has at most MAX_TEXTS_PER_ENTRY rows, so the best k * MAX rows hold the best k entries.
    const keep = new TopRows(k * MAX_TEXTS_PER_ENTRY);
    const d = this.dimensions;
    const m = this.matrix;
    const owners = this.owners;
    const allowed = among === 'active' ? this.activeEntries : this.liveEntries;
    for (let row = 0; row < this.rowsUsed; row++) {
      const owner = owners[row];
      if (owner < 0) continue;
      if (!allowed.has(owner)) continue;
      const o = row * d;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let j = 0; j < d; j += 4) {
        s0 += m[o + j] * query[j];
        s1 += m[o + j + 1] * query[j + 1];
        s2 += m[o + j + 2] * query[j + 2];
        s3 += m[o + j + 3] * query[j + 3];
      }
      keep.offer(owner, s0 + s1 + s2 + s3);
    }
    const best = new Map<number, number>();
    for (let i = 0; i < keep.size; i++) {
      const owner = keep.owners[i];
      if (!best.has(owner)) best.set(owner, keep.scores[i]);
    }
    return [...best].slice(0, k).map(([entrySeq, score]) => ({ entrySeq, score }));
  }

  private dot(query: Float32Array, row: number): number {
    const o = row * this.dimensions;
    let s = 0;
    for (let j = 0; j < this.dimensions; j++) s += this.matrix[o + j] * query[j];
    return s;
  }

  private allocate(): number {
    const reused = this.free.pop();
    if (reused !== undefined) return reused;
    if (this.rowsUsed === this.owners.length) this.grow();
    return this.rowsUsed++;
  }

  private grow(): void {
    const capacity = this.owners.length * 2;
    const matrix = new Float32Array(capacity * this.dimensions);
    matrix.set(this.matrix);
    const owners = new Int32Array(capacity).fill(-1);
    owners.set(this.owners);
    this.matrix = matrix;
    this.owners = owners;
  }
}

/** The question plus up to five alternative questions. */
export const MAX_TEXTS_PER_ENTRY = 6;

/** A fixed-size list of the best (owner, score) pairs seen, kept sorted best first. */
class TopRows {
  readonly owners: Int32Array;
  readonly scores: Float64Array;
  size = 0;
  private readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
    this.owners = new Int32Array(capacity);
    this.scores = new Float64Array(capacity);
  }

  offer(owner: number, score: number): void {
    if (this.size === this.capacity && score <= this.scores[this.size - 1]) return;
    let i = this.size < this.capacity ? this.size++ : this.size - 1;
    while (i > 0 && this.scores[i - 1] < score) {
      this.scores[i] = this.scores[i - 1];
      this.owners[i] = this.owners[i - 1];
      i--;
    }
    this.scores[i] = score;
    this.owners[i] = owner;
  }
}
