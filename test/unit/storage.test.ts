import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DATABASE_FILE, openDatabase, UnknownSchemaError } from '../../src/main/engine/storage/database.ts';
import { MIGRATIONS } from '../../src/main/engine/storage/migrations/index.ts';
import { tempDataDir } from '../helpers/hearth.ts';

describe('storage', () => {
  it('applies every migration once, in order, and records it', () => {
    const dir = tempDataDir();
    try {
      const db = openDatabase(dir);
      const rows = db.prepare('SELECT id, name FROM schema_migrations ORDER BY id').all() as Array<{ id: number; name: string }>;
      assert.deepEqual(rows, MIGRATIONS.map((m) => ({ id: m.id, name: m.name })));
      assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
      assert.equal(db.pragma('foreign_keys', { simple: true }), 1);
      assert.match(String((db.prepare('SELECT vec_version() AS v').get() as { v: string }).v), /^v0\./);
      db.close();
      const again = openDatabase(dir);
      assert.equal((again.prepare('SELECT COUNT(*) AS n FROM schema_migrations').get() as { n: number }).n, MIGRATIONS.length);
      again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a database whose history it does not know, and leaves it untouched', () => {
    const dir = tempDataDir();
    try {
      const db = openDatabase(dir);
      db.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)').run(999, 'from-the-future', new Date().toISOString());
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
      const before = readFileSync(join(dir, DATABASE_FILE));

      assert.throws(() => openDatabase(dir), (error: unknown) => error instanceof UnknownSchemaError && /999 "from-the-future"/.test(error.message));
      assert.deepEqual(readFileSync(join(dir, DATABASE_FILE)), before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rolls back a migration that fails half-way', () => {
    const dir = tempDataDir();
    try {
      const broken = [...MIGRATIONS, { id: 900, name: 'broken', sql: 'CREATE TABLE half (x); INSERT INTO nowhere VALUES (1);' }];
      assert.throws(() => openDatabase(dir, broken));
      const db = openDatabase(dir);
      assert.equal(db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'half'").get(), undefined);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
