import type { Migration } from './index.ts';

/**
 * Asks that found nothing (contract 2.8). One row per base and question, counted on
 * every repeat; `query_key` folds case and spacing so "Reset password?" and
 * "reset  password?" count together. Model settings live in the `settings` table of 0001.
 */
export const llmUnanswered: Migration = {
  id: 4,
  name: 'llm-unanswered',
  sql: /* sql */ `
    CREATE TABLE unanswered_queries (
      knowledge_base_id TEXT NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
      query_key TEXT NOT NULL,
      query TEXT NOT NULL,
      count INTEGER NOT NULL DEFAULT 1,
      first_at TEXT NOT NULL,
      last_at TEXT NOT NULL,
      last_origin TEXT NOT NULL,
      PRIMARY KEY (knowledge_base_id, query_key)
    );
    CREATE INDEX unanswered_queries_rank ON unanswered_queries(knowledge_base_id, count DESC, last_at DESC);
  `,
};
