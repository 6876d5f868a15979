import type { Migration } from './index.ts';

export const flows: Migration = {
  id: 5,
  name: 'flows',
  sql: /* sql */ `
    -- A flow belongs to one user in one workspace (contract 1.1: a token sees the flows its user owns).
    CREATE TABLE flows (
      id TEXT PRIMARY KEY,
      workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      active INTEGER NOT NULL DEFAULT 0,
      -- Bumped by every whole-graph replace, so a run that started before a PUT does not write
      -- its results onto the new nodes (PUT resets run state).
      graph_version INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX flows_owner ON flows(workspace_id, user_id, updated_at);

    -- Node order is insertion order (rowid). last_run holds { status, output, outputs?, error? } as JSON.
    CREATE TABLE flow_nodes (
      flow_id TEXT NOT NULL REFERENCES flows(id) ON DELETE CASCADE,
      id TEXT NOT NULL,
      type TEXT NOT NULL,
      label TEXT NOT NULL,
      description TEXT NOT NULL DEFAULT '',
      config TEXT NOT NULL,
      position_x REAL NOT NULL DEFAULT 0,
      position_y REAL NOT NULL DEFAULT 0,
      last_run TEXT,
      PRIMARY KEY (flow_id, id)
    );

    CREATE TABLE flow_edges (
      flow_id TEXT NOT NULL REFERENCES flows(id) ON DELETE CASCADE,
      id TEXT NOT NULL,
      source TEXT NOT NULL,
      target TEXT NOT NULL,
      source_handle TEXT,
      PRIMARY KEY (flow_id, id)
    );

    -- runner_pid and runner_instance say which engine drives a running execution, so an engine
    -- starting up marks as error only the runs whose engine is gone (a crash), not a live server's.
    CREATE TABLE flow_executions (
      id TEXT PRIMARY KEY,
      flow_id TEXT NOT NULL REFERENCES flows(id) ON DELETE CASCADE,
      workspace_id TEXT NOT NULL,
      status TEXT NOT NULL,
      trigger TEXT NOT NULL,
      started_at TEXT NOT NULL,
      finished_at TEXT,
      error TEXT,
      log TEXT NOT NULL DEFAULT '[]',
      runner_pid INTEGER NOT NULL,
      runner_instance TEXT NOT NULL
    );
    -- Newest first is rowid order within a flow; this index serves listing and pruning.
    CREATE INDEX flow_executions_flow ON flow_executions(flow_id);
    CREATE INDEX flow_executions_status ON flow_executions(status);

    -- Messages written by sendMessaging nodes. delivery: 'outbox' (no webhook), 'delivered', 'failed'.
    CREATE TABLE messaging_outbox (
      id TEXT PRIMARY KEY,
      workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
      user_id TEXT NOT NULL,
      flow_id TEXT,
      execution_id TEXT,
      node_id TEXT,
      channel TEXT NOT NULL,
      recipient TEXT NOT NULL,
      text TEXT NOT NULL,
      webhook_url TEXT,
      delivery TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      last_error TEXT,
      created_at TEXT NOT NULL
    );
    CREATE INDEX messaging_outbox_owner ON messaging_outbox(workspace_id, user_id, created_at);
  `,
};
