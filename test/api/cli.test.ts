import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { PROJECT_ROOT, runCli, runCliJson, tempDataDir } from '../helpers/hearth.ts';

interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
}

function serve(dataDir: string, port = 0): Promise<Served> {
  const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'hearth.js'), '--data-dir', dataDir, 'serve', '--port', String(port), '--json']);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve({ child, url: (JSON.parse(line) as { url: string }).url });
    });
    child.once('exit', (code) => reject(new Error(`serve exited early with ${code}`)));
  });
}

function exitOf(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('hearth CLI', () => {
  let dataDir: string;
  before(() => {
    dataDir = tempDataDir();
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates and lists workspaces and users as one JSON object each', () => {
    const ws = runCliJson<{ id: string; name: string }>(dataDir, ['workspace', 'create', '--name', 'Team']);
    assert.match(ws.id, /^[0-9a-f-]{36}$/);
    const list = runCliJson<{ workspaces: Array<{ id: string; name: string }> }>(dataDir, ['workspace', 'list']);
    assert.deepEqual(list.workspaces.map((w) => w.name), ['Personal', 'Team']);
    const user = runCliJson<{ id: string; workspaceId: string }>(dataDir, ['user', 'create', '--workspace', ws.id, '--name', 'Ada']);
    assert.equal(user.workspaceId, ws.id);
    const defaultUser = runCliJson<{ workspaceId: string }>(dataDir, ['user', 'create', '--name', 'Bob']);
    assert.equal(defaultUser.workspaceId, list.workspaces[0].id);
  });

  it('creates, lists, reveals and revokes tokens', () => {
    const created = runCliJson<{ id: string; token: string; scopes: string[]; expiresAt: string }>(dataDir, [
      'token', 'create', '--name', 'ci', '--access', 'read', '--resources', 'knowledge', '--expires', '2099-01-01T00:00:00Z',
    ]);
    assert.match(created.token, /^hth_/);
    assert.deepEqual(created.scopes, ['knowledge:read']);
    assert.equal(created.expiresAt, '2099-01-01T00:00:00.000Z');
    const revealed = runCliJson<{ token: string }>(dataDir, ['token', 'reveal', created.id]);
    assert.equal(revealed.token, created.token);
    const listed = runCliJson<{ tokens: Array<{ id: string; revokedAt: string | null }> }>(dataDir, ['token', 'list']);
    assert.ok(listed.tokens.some((t) => t.id === created.id && t.revokedAt === null));
    const revoked = runCliJson<{ revokedAt: string }>(dataDir, ['token', 'revoke', created.id]);
    assert.ok(revoked.revokedAt);
    const bad = runCli(dataDir, ['token', 'create', '--name', 'x', '--resources', 'pets', '--json']);
    assert.notEqual(bad.status, 0);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, /pets/);
  });

  it('sets and shows credits with a ledger', () => {
    runCliJson(dataDir, ['credits', 'set', '--balance', '42']);
    const shown = runCliJson<{ balance: number; ledger: Array<{ kind: string; balanceAfter: number }> }>(dataDir, ['credits', 'show']);
    assert.equal(shown.balance, 42);
    assert.equal(shown.ledger[0].kind, 'set');
    assert.equal(shown.ledger[0].balanceAfter, 42);
  });

  it('serves both families to a token made by `hearth token create` while serving, and stops on SIGTERM', async () => {
    const served = await serve(dataDir);
    try {
      const { token } = runCliJson<{ token: string }>(dataDir, ['token', 'create', '--name', 'live', '--access', 'write']);
      for (const path of ['/api/ai/knowledge/me', '/api/ai/simple-flow/me']) {
        const res = await fetch(served.url + path, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(res.status, 200, path);
      }
      runCliJson(dataDir, ['credits', 'set', '--balance', '7']);
      assert.equal(runCliJson<{ balance: number }>(dataDir, ['credits', 'show']).balance, 7);
    } finally {
      served.child.kill('SIGTERM');
    }
    assert.equal(await exitOf(served.child), 0);
  });

  it('fails with a message naming the port when it is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = runCli(dataDir, ['serve', '--port', String(port)]);
      assert.equal(result.status, 1);
      assert.match(result.stderr, new RegExp(`Port ${port}.*--port`));
    } finally {
      blocker.close();
    }
  });
});
