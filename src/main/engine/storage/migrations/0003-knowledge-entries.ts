import type { Migration } from './index.ts';

/**
 * Entries and their search index.
 *
 * - `entries.seq` is a stable integer key for the index tables (`id` stays the public UUID).
 * - `entry_fts` holds one row per ACTIVE entry (rowid = seq), text pre-normalised by the
 *   engine (accents folded, CJK split into character bigrams) so unicode61 only splits words.
 * - `entry_vectors` says which text of which entry was embedded by which model; the vector
 *   itself lives in a sqlite-vec `vec0` table per dimension (`vec_<dim>`, rowid = entry_vectors.id),
 *   created on first use with a trigger that deletes it with its row, so no delete path
 *   (entry, base, cascade) can leave an orphan vector.
 * - `sig` is a hash of the texts an entry wants embedded; a vector row whose sig differs from
 *   its entry's is stale and is replaced by the indexer.
 */
export const knowledgeEntries: Migration = {
  id: 3,
  name: 'knowledge-entries',
  sql: /* sql */ `
    ALTER TABLE knowledge_bases ADD COLUMN pending_embedding_model TEXT;

    CREATE TABLE entries (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      base_id TEXT NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
      subject TEXT NOT NULL,
      question TEXT NOT NULL,
      question_key TEXT NOT NULL,
      alt_questions TEXT NOT NULL DEFAULT '[]',
      answer TEXT NOT NULL,
      keywords TEXT NOT NULL DEFAULT '[]',
      source_excerpt TEXT,
      page INTEGER,
      status TEXT NOT NULL CHECK (status IN ('active', 'draft', 'archived')),
      conflict_of_id TEXT,
      valid_until TEXT,
      hit_count INTEGER NOT NULL DEFAULT 0,
      last_hit_at TEXT,
      source_id TEXT,
      source_title TEXT,
      message_id TEXT,
      embed_sig TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX entries_base_created ON entries(base_id, created_at);
    CREATE INDEX entries_base_question ON entries(base_id, question_key);
    CREATE INDEX entries_base_status ON entries(base_id, status);
    CREATE INDEX entries_base_source ON entries(base_id, source_id);

    CREATE VIRTUAL TABLE entry_fts USING fts5(
      questions, subject, keywords, answer,
      base_id UNINDEXED,
      tokenize = 'unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE entry_fts_terms USING fts5vocab(entry_fts, 'row');
    CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries BEGIN
      DELETE FROM entry_fts WHERE rowid = old.seq;
    END;

    CREATE TABLE entry_vectors (
      id INTEGER PRIMARY KEY,
      entry_seq INTEGER NOT NULL REFERENCES entries(seq) ON DELETE CASCADE,
      base_id TEXT NOT NULL,
      model_id TEXT NOT NULL,
      dim INTEGER NOT NULL,
      sig TEXT NOT NULL,
      ord INTEGER NOT NULL
    );
    CREATE INDEX entry_vectors_entry ON entry_vectors(entry_seq, model_id);
    CREATE INDEX entry_vectors_base_model ON entry_vectors(base_id, model_id);
  `,
};
