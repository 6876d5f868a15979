import type { Migration } from './index.ts';

export const knowledgeBases: Migration = {
  id: 2,
  name: 'knowledge-bases',
  sql: /* sql */ `
    CREATE TABLE knowledge_bases (
      id TEXT PRIMARY KEY,
      workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      description TEXT NOT NULL DEFAULT '',
      embedding_model TEXT NOT NULL,
      review_before_index INTEGER NOT NULL DEFAULT 0,
      default_language TEXT,
      indexing INTEGER NOT NULL DEFAULT 0,
      last_indexed_at TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX knowledge_bases_workspace ON knowledge_bases(workspace_id, updated_at);
  `,
};
