import type { Migration } from './index.ts';

export const identity: Migration = {
  id: 1,
  name: 'identity',
  sql: /* sql */ `
    CREATE TABLE workspaces (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      credit_balance REAL NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL
    );

    CREATE TABLE users (
      id TEXT PRIMARY KEY,
      workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE INDEX users_workspace ON users(workspace_id);

    -- The secret is never stored in clear: secret_hash (HMAC) checks it,
    -- secret_box (AES-GCM) lets its owner reveal it again. Both keys live in a
    -- file outside the database.
    CREATE TABLE tokens (
      id TEXT PRIMARY KEY,
      public_id TEXT NOT NULL UNIQUE,
      workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      access TEXT NOT NULL CHECK (access IN ('read', 'write')),
      resources TEXT NOT NULL,
      knowledge_base_id TEXT,
      flow_id TEXT,
      secret_hash BLOB NOT NULL,
      secret_box BLOB NOT NULL,
      expires_at TEXT,
      revoked_at TEXT,
      last_used_at TEXT,
      created_at TEXT NOT NULL
    );
    CREATE INDEX tokens_workspace ON tokens(workspace_id);

    CREATE TABLE credit_ledger (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      kind TEXT NOT NULL,
      call TEXT NOT NULL,
      model TEXT,
      input_tokens INTEGER NOT NULL DEFAULT 0,
      output_tokens INTEGER NOT NULL DEFAULT 0,
      embedding_tokens INTEGER NOT NULL DEFAULT 0,
      credits REAL NOT NULL,
      balance_after REAL NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE INDEX credit_ledger_workspace ON credit_ledger(workspace_id, id);

    CREATE TABLE settings (
      workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      key TEXT NOT NULL,
      value TEXT NOT NULL,
      PRIMARY KEY (workspace_id, key)
    );
  `,
};
