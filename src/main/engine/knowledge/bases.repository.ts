import type { Db } from '../storage/database.ts';
import type { KnowledgeBase } from './knowledge.types.ts';

interface BaseRow {
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  embedding_model: string;
  review_before_index: number;
  default_language: string | null;
  indexing: number;
  last_indexed_at: string | null;
  created_at: string;
  updated_at: string;
  entry_count: number;
  source_count: number;
}

const toBase = (r: BaseRow): KnowledgeBase => ({
  id: r.id,
  orgId: r.workspace_id,
  name: r.name,
  description: r.description,
  embeddingModel: r.embedding_model,
  reviewBeforeIndex: r.review_before_index === 1,
  defaultLanguage: r.default_language,
  sourceCount: r.source_count,
  entryCount: r.entry_count,
  indexing: r.indexing === 1,
  lastIndexedAt: r.last_indexed_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

// Counts are derived on read so they can never drift from the rows they count.
// entryCount counts every entry of the base (any status), the number the 20 000 limit applies to.
// sourceCount stays 0 until the sources issue adds its table.
const SELECT_BASE = `SELECT b.*, (SELECT COUNT(*) FROM entries e WHERE e.base_id = b.id) AS entry_count, 0 AS source_count FROM knowledge_bases b`;

/** What the background indexer needs to know about a base. */
export interface IndexState {
  id: string;
  workspaceId: string;
  embeddingModel: string;
  pendingEmbeddingModel: string | null;
  indexing: boolean;
}

export interface BaseChanges {
  name?: string;
  description?: string;
  reviewBeforeIndex?: boolean;
  defaultLanguage?: string | null;
}

export class BasesRepository {
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  insert(base: KnowledgeBase): void {
    this.db
      .prepare(
        `INSERT INTO knowledge_bases (id, workspace_id, name, description, embedding_model, review_before_index, default_language, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(base.id, base.orgId, base.name, base.description, base.embeddingModel, base.reviewBeforeIndex ? 1 : 0, base.defaultLanguage, base.createdAt, base.updatedAt);
  }

  get(workspaceId: string, id: string): KnowledgeBase | undefined {
    const row = this.db.prepare(`${SELECT_BASE} WHERE b.id = ? AND b.workspace_id = ?`).get(id, workspaceId) as BaseRow | undefined;
    return row && toBase(row);
  }

  list(workspaceId: string): KnowledgeBase[] {
    const rows = this.db.prepare(`${SELECT_BASE} WHERE b.workspace_id = ? ORDER BY b.updated_at DESC, b.rowid DESC`).all(workspaceId) as BaseRow[];
    return rows.map(toBase);
  }

  count(workspaceId: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM knowledge_bases WHERE workspace_id = ?').get(workspaceId) as { n: number }).n;
  }

  update(id: string, changes: BaseChanges, updatedAt: string): void {
    const sets: string[] = ['updated_at = @updatedAt'];
    if (changes.name !== undefined) sets.push('name = @name');
    if (changes.description !== undefined) sets.push('description = @description');
    if (changes.reviewBeforeIndex !== undefined) sets.push('review_before_index = @reviewBeforeIndex');
    if (changes.defaultLanguage !== undefined) sets.push('default_language = @defaultLanguage');
    this.db.prepare(`UPDATE knowledge_bases SET ${sets.join(', ')} WHERE id = @id`).run({
      id,
      updatedAt,
      name: changes.name ?? null,
      description: changes.description ?? null,
      reviewBeforeIndex: changes.reviewBeforeIndex ? 1 : 0,
      defaultLanguage: changes.defaultLanguage ?? null,
    });
  }

  /** Marks the base changed, so lists show the most recently updated first. */
  touch(id: string, updatedAt: string): void {
    this.db.prepare('UPDATE knowledge_bases SET updated_at = ? WHERE id = ?').run(updatedAt, id);
  }

  indexState(id: string): IndexState | undefined {
    const row = this.db.prepare('SELECT id, workspace_id, embedding_model, pending_embedding_model, indexing FROM knowledge_bases WHERE id = ?').get(id) as
      | { id: string; workspace_id: string; embedding_model: string; pending_embedding_model: string | null; indexing: number }
      | undefined;
    return row && { id: row.id, workspaceId: row.workspace_id, embeddingModel: row.embedding_model, pendingEmbeddingModel: row.pending_embedding_model, indexing: row.indexing === 1 };
  }

  /** Bases whose background indexing did not finish (the app stopped mid-way). */
  unfinishedIndexing(): string[] {
    return (this.db.prepare('SELECT id FROM knowledge_bases WHERE indexing = 1 OR pending_embedding_model IS NOT NULL').all() as Array<{ id: string }>).map((r) => r.id);
  }

  startIndexing(id: string, pendingModel: string | null | undefined): void {
    if (pendingModel === undefined) this.db.prepare('UPDATE knowledge_bases SET indexing = 1 WHERE id = ?').run(id);
    else this.db.prepare('UPDATE knowledge_bases SET indexing = 1, pending_embedding_model = ? WHERE id = ?').run(pendingModel, id);
  }

  /** Index writes for the base are complete as of `at`. */
  markIndexed(id: string, at: string): void {
    this.db.prepare('UPDATE knowledge_bases SET last_indexed_at = ? WHERE id = ?').run(at, id);
  }

  finishIndexing(id: string, at: string, switchToModel: string | null): void {
    if (switchToModel) {
      this.db
        .prepare('UPDATE knowledge_bases SET indexing = 0, last_indexed_at = ?, embedding_model = ?, pending_embedding_model = NULL, updated_at = ? WHERE id = ?')
        .run(at, switchToModel, at, id);
    } else {
      this.db.prepare('UPDATE knowledge_bases SET indexing = 0, last_indexed_at = ?, pending_embedding_model = NULL WHERE id = ?').run(at, id);
    }
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM knowledge_bases WHERE id = ?').run(id);
  }
}
