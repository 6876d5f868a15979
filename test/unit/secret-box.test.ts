import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Engine } from '../../src/main/engine/engine.ts';
import { silentLogger } from '../../src/main/engine/shared/logger.ts';
import { DATABASE_FILE } from '../../src/main/engine/storage/database.ts';
import { tempDataDir } from '../helpers/hearth.ts';

describe('token secrets at rest', () => {
  it('never stores a token secret in the database, yet can reveal it with the key file', async () => {
    const dir = tempDataDir();
    try {
      const engine = new Engine({ dataDir: dir, logger: silentLogger });
      const ws = engine.identity.ensureDefaults();
      const { token, secret } = engine.identity.createToken({ workspaceId: ws.workspace.id, userId: ws.user.id, name: 'n', access: 'read', resources: ['knowledge'] });
      engine.db.pragma('wal_checkpoint(TRUNCATE)');
      const raw = readFileSync(join(dir, DATABASE_FILE));
      assert.equal(raw.includes(Buffer.from(secret)), false);
      assert.equal(raw.includes(Buffer.from(secret.split('_')[2])), false);
      assert.equal(engine.identity.revealToken(ws.workspace.id, token.id).secret, secret);
      await engine.dispose();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
