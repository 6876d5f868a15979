import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS, type Migration } from './migrations/index.ts';

export type Db = Database.Database;

export class UnknownSchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnknownSchemaError';
  }
}

export const DATABASE_FILE = 'hearth.db';

/**
 * Opens (creating if needed) the one SQLite database of a data folder.
 * The migration history is checked before anything is written, so a folder
 * written by a newer Hearth is refused untouched.
 */
export function openDatabase(dataDir: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, DATABASE_FILE);
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 5000');
    assertKnownHistory(db, migrations);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    sqliteVec.load(db);
    applyMigrations(db, migrations);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

interface AppliedRow {
  id: number;
  name: string;
}

function readHistory(db: Db): AppliedRow[] {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!table) return [];
  return db.prepare('SELECT id, name FROM schema_migrations ORDER BY id').all() as AppliedRow[];
}

function assertKnownHistory(db: Db, migrations: readonly Migration[]): void {
  const known = new Map(migrations.map((m) => [m.id, m.name]));
  for (const row of readHistory(db)) {
    const name = known.get(row.id);
    if (name !== row.name) {
      throw new UnknownSchemaError(
        `This data folder's database has migration ${row.id} "${row.name}", which this version of Hearth does not know ` +
          `(it was probably written by a newer Hearth). It was left untouched. Open it with a newer Hearth, or pick another data folder with --data-dir.`,
      );
    }
  }
}

function applyMigrations(db: Db, migrations: readonly Migration[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied = new Set(readHistory(db).map((r) => r.id));
  const record = db.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)');
  const ordered = [...migrations].sort((a, b) => a.id - b.id);
  for (const migration of ordered) {
    if (applied.has(migration.id)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.id, migration.name, new Date().toISOString());
    }).immediate();
  }
}
