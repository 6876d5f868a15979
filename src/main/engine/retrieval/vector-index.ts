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
  /** Sign bits of each row (1 bit per dimension), for the Hamming pre-filter of large bases. */
  private codes: Uint32Array;
  private readonly words: number;
  private rowsUsed = 0;
  private readonly free: number[] = [];
  private readonly rowsByEntry = new Map<number, number[]>();
  /**
   * Per row: ACTIVE (searched by default) and LIVE (active or draft: counts as existing for
   * near-duplicates). A flat array, so the scan tests a row with one load instead of a hash lookup.
   */
  private flags: Uint8Array;
  /** Most rows any entry has had: bounds how many rows can belong to the best k entries. */
  private maxRowsPerEntry = 1;

  constructor(dimensions: number, capacity = 1024) {
    this.dimensions = dimensions;
    this.words = Math.ceil(dimensions / 32);
    this.matrix = new Float32Array(capacity * dimensions);
    this.owners = new Int32Array(capacity).fill(-1);
    this.codes = new Uint32Array(capacity * this.words);
    this.flags = new Uint8Array(capacity);
  }

  get entryCount(): number {
    return this.rowsByEntry.size;
  }

  get byteSize(): number {
    return this.matrix.byteLength + this.owners.byteLength + this.codes.byteLength;
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
      this.codes.set(signBits(vector, this.words), row * this.words);
      this.owners[row] = entrySeq;
      rows.push(row);
    }
    this.rowsByEntry.set(entrySeq, rows);
    this.maxRowsPerEntry = Math.max(this.maxRowsPerEntry, rows.length);
    this.setStatus(entrySeq, status);
  }

  setStatus(entrySeq: number, status: IndexedStatus): void {
    const flag = status === 'active' ? ACTIVE | LIVE : status === 'draft' ? LIVE : 0;
    for (const row of this.rowsByEntry.get(entrySeq) ?? []) this.flags[row] = flag;
  }

  remove(entrySeq: number): void {
    const rows = this.rowsByEntry.get(entrySeq);
    if (!rows) return;
    for (const row of rows) {
      this.owners[row] = -1;
      this.flags[row] = 0;
      this.free.push(row);
    }
    this.rowsByEntry.delete(entrySeq);
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
    // No entry has more than maxRowsPerEntry rows, so the best k * that many rows hold the best k entries.
    const perEntry = this.maxRowsPerEntry;
    const keep = new TopRows(k * perEntry);
    const d = this.dimensions;
    const m = this.matrix;
    const owners = this.owners;
    const mask = among === 'active' ? ACTIVE : LIVE;
    const flags = this.flags;
    const rows = this.rowsUsed >= EXACT_SCAN_MAX_ROWS ? this.prefilter(query, mask, Math.max(RERANK_ROWS, k * perEntry * 8)) : undefined;
    const count = rows ? rows.length : this.rowsUsed;
    for (let i = 0; i < count; i++) {
      const row = rows ? rows[i] : i;
      if ((flags[row] & mask) === 0) continue;
      const owner = owners[row];
      const o = row * d;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let j = 0;
      for (; j + 3 < d; j += 4) {
        s0 += m[o + j] * query[j];
        s1 += m[o + j + 1] * query[j + 1];
        s2 += m[o + j + 2] * query[j + 2];
        s3 += m[o + j + 3] * query[j + 3];
      }
      for (; j < d; j++) s0 += m[o + j] * query[j];
      keep.offer(owner, s0 + s1 + s2 + s3);
    }
    const best = new Map<number, number>();
    for (let i = 0; i < keep.size; i++) {
      const owner = keep.owners[i];
      if (!best.has(owner)) best.set(owner, keep.scores[i]);
    }
    return [...best].slice(0, k).map(([entrySeq, score]) => ({ entrySeq, score }));
  }

  /**
   * Rows whose sign bits are closest to the query's (Hamming distance), about `want` of them.
   * Reading 48 bytes per row instead of 1 536 makes large bases several times faster; the
   * exact cosine then re-ranks these rows, so scores stay exact and only recall is at stake
   * (the bench reports agreement with a brute-force scan).
   */
  private prefilter(query: Float32Array, mask: number, want: number): Int32Array {
    const words = this.words;
    const q = signBits(query, words);
    const codes = this.codes;
    const flags = this.flags;
    const distance = new Uint16Array(this.rowsUsed);
    const histogram = new Uint32Array(words * 32 + 2);
    const none = words * 32 + 1;
    for (let row = 0; row < this.rowsUsed; row++) {
      if ((flags[row] & mask) === 0) {
        distance[row] = none;
        continue;
      }
      let dist = 0;
      const o = row * words;
      for (let w = 0; w < words; w++) dist += popcount(codes[o + w] ^ q[w]);
      distance[row] = dist;
      histogram[dist]++;
    }
    let limit = 0;
    let taken = 0;
    while (limit < none && taken + histogram[limit] < want) taken += histogram[limit++];
    const out: number[] = [];
    for (let row = 0; row < this.rowsUsed; row++) if (distance[row] <= limit) out.push(row);
    return Int32Array.from(out);
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
    const codes = new Uint32Array(capacity * this.words);
    codes.set(this.codes);
    const flags = new Uint8Array(capacity);
    flags.set(this.flags);
    this.flags = flags;
    this.matrix = matrix;
    this.owners = owners;
    this.codes = codes;
  }
}

const ACTIVE = 1;
const LIVE = 2;

/** Below this many rows every search is an exact scan; above, a sign-bit pre-filter picks rows to score exactly. */
export const EXACT_SCAN_MAX_ROWS = 4096;
/** Rows the pre-filter hands to the exact scan (about 5% of a 20 000-entry base). */
export const RERANK_ROWS = 1024;

function signBits(vector: Float32Array, words: number): Uint32Array {
  const out = new Uint32Array(words);
  for (let j = 0; j < vector.length; j++) if (vector[j] > 0) out[j >>> 5] |= 1 << (j & 31);
  return out;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
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
