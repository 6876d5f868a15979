import type { Db } from '../storage/database.ts';

export interface UnansweredItem {
  query: string;
  count: number;
  lastAt: string;
}

/** Case and spacing do not make a new question: they fold into one counted row. */
export function unansweredKey(query: string): string {
  return query.trim().replace(/\s+/g, ' ').toLowerCase();
}

export class UnansweredRepository {
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  /** Counts one more miss; the newest spelling is the one listed. */
  record(kbId: string, query: string, at: string, origin: string): void {
    this.db
      .prepare(
        `INSERT INTO unanswered_queries (knowledge_base_id, query_key, query, count, first_at, last_at, last_origin)
         VALUES (?, ?, ?, 1, ?, ?, ?)
         ON CONFLICT (knowledge_base_id, query_key) DO UPDATE SET
           count = count + 1, query = excluded.query, last_at = excluded.last_at, last_origin = excluded.last_origin`,
      )
      .run(kbId, unansweredKey(query), query.trim(), at, at, origin);
  }

  list(kbId: string, limit: number): UnansweredItem[] {
    return this.db
      .prepare('SELECT query, count, last_at AS lastAt FROM unanswered_queries WHERE knowledge_base_id = ? ORDER BY count DESC, last_at DESC, query LIMIT ?')
      .all(kbId, limit) as UnansweredItem[];
  }

  /** Removes the row listed with exactly this query text; returns how many went. */
  deleteExact(kbId: string, query: string): number {
    return this.db.prepare('DELETE FROM unanswered_queries WHERE knowledge_base_id = ? AND query = ?').run(kbId, query).changes;
  }

  deleteAll(kbId: string): number {
    return this.db.prepare('DELETE FROM unanswered_queries WHERE knowledge_base_id = ?').run(kbId).changes;
  }
}
