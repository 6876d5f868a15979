import type { Db } from '../storage/database.ts';

/** The row as kept in `settings` under key `model`: the API key only ever sealed (AES-GCM, base64). */
export interface StoredModelSettings {
  baseUrl: string;
  model: string;
  apiKeyBox: string | null;
  timeoutMs: number;
  stream: boolean;
  updatedAt: string;
}

const KEY = 'model';

export class ModelSettingsRepository {
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  get(workspaceId: string): StoredModelSettings | null {
    const row = this.db.prepare('SELECT value FROM settings WHERE workspace_id = ? AND key = ?').get(workspaceId, KEY) as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as StoredModelSettings) : null;
  }

  put(workspaceId: string, settings: StoredModelSettings): void {
    this.db
      .prepare('INSERT INTO settings (workspace_id, key, value) VALUES (?, ?, ?) ON CONFLICT (workspace_id, key) DO UPDATE SET value = excluded.value')
      .run(workspaceId, KEY, JSON.stringify(settings));
  }

  delete(workspaceId: string): void {
    this.db.prepare('DELETE FROM settings WHERE workspace_id = ? AND key = ?').run(workspaceId, KEY);
  }
}
