import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { LedgerEntry } from '../../src/main/engine/credits/credits.repository.ts';
import { DATABASE_FILE } from '../../src/main/engine/storage/database.ts';
import { FakeLlmServer } from '../helpers/fake-llm-server.ts';
import { PROJECT_ROOT, runCli, runCliJson, tempDataDir, TestHearth } from '../helpers/hearth.ts';

const SECRET_KEY = 'sk-live-abcdefghijklmnop1234';

interface SettingsBody {
  configured: boolean;
  baseUrl: string | null;
  model: string | null;
  apiKeySet: boolean;
  apiKeyHint: string | null;
  timeoutMs: number;
  stream: boolean;
  updatedAt: string | null;
}

describe('model settings and credits through the app API', () => {
  let hearth: TestHearth;
  let fake: FakeLlmServer;
  const app = (): string => hearth.appSession;

  before(async () => {
    fake = await FakeLlmServer.start();
    hearth = await TestHearth.start();
  });
  beforeEach(() => fake.reset());
  after(async () => {
    await hearth.stop();
    await fake.close();
  });

  it('starts unconfigured, saves settings with the key sealed, and never returns the key', async () => {
    const empty = await hearth.request<SettingsBody>('GET', '/api/app/settings/model', { token: app() });
    assert.equal(empty.status, 200);
    assert.equal(empty.body.configured, false);

    const saved = await hearth.request<SettingsBody>('PUT', '/api/app/settings/model', {
      token: app(),
      body: { baseUrl: fake.baseUrl + '/', model: 'llama3.2', apiKey: SECRET_KEY, timeoutMs: 4000, stream: false },
    });
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual({ ...saved.body, updatedAt: undefined }, {
      configured: true, baseUrl: fake.baseUrl, model: 'llama3.2', apiKeySet: true, apiKeyHint: '…1234', timeoutMs: 4000, stream: false, updatedAt: undefined,
    }); // prettier-ignore
    assert.ok(!saved.text.includes(SECRET_KEY));

    // Any token of the workspace may read the settings (not the key); only the app may change them.
    const read = await hearth.request<SettingsBody>('GET', '/api/app/settings/model', { token: hearth.token({ access: 'read', resources: ['knowledge'] }) });
    assert.equal(read.body.model, 'llama3.2');
    assert.ok(!read.text.includes(SECRET_KEY));
    const byToken = await hearth.request<{ code: string }>('PUT', '/api/app/settings/model', { token: hearth.token(), body: { baseUrl: fake.baseUrl, model: 'x' } });
    assert.equal(byToken.status, 403);
    assert.equal(byToken.body.code, 'FORBIDDEN');

    hearth.engine.db.pragma('wal_checkpoint(TRUNCATE)');
    const raw = readFileSync(join(hearth.dataDir, DATABASE_FILE));
    assert.equal(raw.indexOf(SECRET_KEY), -1, 'the key is not in the database in clear');
  });

  it('tests the saved settings, sending the key, and reports failures as ok:false', async () => {
    fake.script({ reply: 'ready', usage: { prompt_tokens: 25, completion_tokens: 1 } });
    const ok = await hearth.request<{ ok: boolean; reply: string; latencyMs: number; inputTokens: number }>('POST', '/api/app/settings/model/test', { token: app() });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.ok, true);
    assert.equal(ok.body.reply, 'ready');
    assert.equal(ok.body.inputTokens, 25);
    assert.equal(fake.requests[0].headers.authorization, `Bearer ${SECRET_KEY}`);
    assert.equal(fake.requests[0].body.model, 'llama3.2');

    fake.script({ status: 404, message: 'model "llama3.2" not found, try pulling it first' });
    const failed = await hearth.request<{ ok: boolean; error: string }>('POST', '/api/app/settings/model/test', { token: app() });
    assert.equal(failed.status, 200);
    assert.equal(failed.body.ok, false);
    assert.match(failed.body.error, /404: model "llama3.2" not found/);
  });

  it('tests unsaved values without saving them', async () => {
    fake.script({ reply: 'ready' });
    const res = await hearth.request<{ ok: boolean; model: string }>('POST', '/api/app/settings/model/test', { token: app(), body: { baseUrl: fake.baseUrl, model: 'qwen2.5' } });
    assert.equal(res.body.ok, true, res.text);
    assert.equal(fake.requests[0].body.model, 'qwen2.5');
    assert.equal((await hearth.request<SettingsBody>('GET', '/api/app/settings/model', { token: app() })).body.model, 'llama3.2');
    const half = await hearth.request<{ details: { fieldErrors: Record<string, string[]> } }>('POST', '/api/app/settings/model/test', { token: app(), body: { baseUrl: fake.baseUrl } });
    assert.equal(half.status, 400);
    assert.ok(half.body.details.fieldErrors.model);
  });

  it('keeps the key for the same server, drops it for another origin, clears it on request', async () => {
    const same = await hearth.request<SettingsBody>('PUT', '/api/app/settings/model', { token: app(), body: { baseUrl: fake.baseUrl, model: 'other-model' } });
    assert.equal(same.body.apiKeySet, true);
    assert.equal(same.body.timeoutMs, 4000, 'unsent fields keep their values');
    const moved = await hearth.request<SettingsBody>('PUT', '/api/app/settings/model', { token: app(), body: { baseUrl: 'http://127.0.0.2:9/v1', model: 'other-model' } });
    assert.equal(moved.body.apiKeySet, false, 'a key never follows the settings to another server');
    await hearth.request('PUT', '/api/app/settings/model', { token: app(), body: { baseUrl: fake.baseUrl, model: 'm', apiKey: SECRET_KEY } });
    const cleared = await hearth.request<SettingsBody>('PUT', '/api/app/settings/model', { token: app(), body: { baseUrl: fake.baseUrl, model: 'm', apiKey: null } });
    assert.equal(cleared.body.apiKeySet, false);
  });

  it('validates the settings with fieldErrors', async () => {
    for (const [body, field] of [
      [{ baseUrl: 'ftp://host/v1', model: 'm' }, 'baseUrl'],
      [{ baseUrl: 'not a url', model: 'm' }, 'baseUrl'],
      [{ baseUrl: fake.baseUrl, model: '' }, 'model'],
      [{ baseUrl: fake.baseUrl, model: 'm', timeoutMs: 5 }, 'timeoutMs'],
      [{ model: 'm' }, 'baseUrl'],
    ] as const) {
      const res = await hearth.request<{ code: string; details: { fieldErrors: Record<string, string[]> } }>('PUT', '/api/app/settings/model', { token: app(), body });
      assert.equal(res.status, 400, res.text);
      assert.ok(res.body.details.fieldErrors[field], `${field} in ${res.text}`);
    }
  });

  it('says how to configure a model when a test runs without one', async () => {
    await hearth.request('DELETE', '/api/app/settings/model', { token: app() });
    const res = await hearth.request<{ code: string; error: string }>('POST', '/api/app/settings/model/test', { token: app() });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'BAD_REQUEST');
    assert.match(res.body.error, /hearth model set --base-url .* --model/);
    assert.match(res.body.error, /Settings page/);
  });

  it('shows the balance and the ledger with call, model, tokens, credits and time', async () => {
    const ws = hearth.defaultWorkspaceId;
    hearth.engine.credits.setBalance(ws, 50);
    hearth.engine.credits.spend(ws, { call: 'ask', model: 'tiny', inputTokens: 100, outputTokens: 20, embeddingTokens: 7, credits: 0.00174 });
    const res = await hearth.request<{ balance: number; ledger: LedgerEntry[] }>('GET', '/api/app/credits?limit=2', { token: hearth.token({ access: 'read', resources: ['knowledge'] }) });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.balance, 49.99826);
    assert.equal(res.body.ledger.length, 2);
    const [spend, set] = res.body.ledger;
    assert.deepEqual({ ...spend, id: 0, createdAt: '' }, { id: 0, kind: 'spend', call: 'ask', model: 'tiny', inputTokens: 100, outputTokens: 20, embeddingTokens: 7, credits: 0.00174, balanceAfter: 49.99826, createdAt: '' });
    assert.ok(!Number.isNaN(Date.parse(spend.createdAt)));
    assert.equal(set.kind, 'set');
    const topUp = await hearth.request<{ balance: number }>('PUT', '/api/app/credits/balance', { token: app(), body: { balance: 200 } });
    assert.equal(topUp.body.balance, 200);
    assert.equal((await hearth.request('PUT', '/api/app/credits/balance', { token: hearth.token(), body: { balance: 1e9 } })).status, 403);
  });
});

describe('hearth model set|show|test|clear and credits show', () => {
  let fake: FakeLlmServer;
  let dataDir: string;
  before(async () => {
    fake = await FakeLlmServer.start();
    dataDir = tempDataDir();
  });
  after(async () => {
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sets, shows (without the key) and tests the model', async () => {
    const set = runCliJson<SettingsBody & { workspaceId: string }>(dataDir, ['model', 'set', '--base-url', fake.baseUrl, '--model', 'llama3.2', '--api-key', SECRET_KEY, '--timeout-ms', '3000', '--no-stream']);
    assert.equal(set.configured, true);
    assert.equal(set.stream, false);
    const shown = runCli(dataDir, ['model', 'show', '--json']);
    assert.equal(shown.status, 0, shown.stderr);
    const body = JSON.parse(shown.stdout) as SettingsBody;
    assert.deepEqual([body.baseUrl, body.model, body.apiKeySet, body.timeoutMs, body.stream], [fake.baseUrl, 'llama3.2', true, 3000, false]);
    assert.ok(!shown.stdout.includes(SECRET_KEY));
    assert.match(runCli(dataDir, ['model', 'show']).stdout, /model\s+llama3\.2/);

    const test = await runCliAsync(dataDir, ['model', 'test']);
    assert.equal(test.status, 0, test.stderr);
    assert.match(test.stdout, /^OK: llama3\.2 at .* answered "ready" in \d+ ms/);
    assert.equal(fake.requests.at(-1)?.headers.authorization, `Bearer ${SECRET_KEY}`);

    fake.script({ status: 401, message: 'invalid api key' });
    const failed = await runCliAsync(dataDir, ['model', 'test', '--json']);
    assert.equal(failed.status, 1);
    assert.equal((JSON.parse(failed.stdout) as { ok: boolean }).ok, false);
  });

  it('refuses a bad base URL naming the field, and clears the model', () => {
    const bad = runCli(dataDir, ['model', 'set', '--base-url', 'localhost', '--model', 'x']);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /baseUrl/);
    const cleared = runCliJson<SettingsBody>(dataDir, ['model', 'clear']);
    assert.equal(cleared.configured, false);
    const test = runCli(dataDir, ['model', 'test']);
    assert.equal(test.status, 1);
    assert.match(test.stderr, /hearth model set/);
  });

  it('credits show prints the ledger with call, model, tokens and credits', () => {
    runCliJson(dataDir, ['credits', 'set', '--balance', '10']);
    const shown = runCli(dataDir, ['credits', 'show']);
    assert.equal(shown.status, 0, shown.stderr);
    assert.match(shown.stdout, /^balance 10\n/);
    assert.match(shown.stdout, /set\s+balance\s+model=-\s+tokens in=0 out=0 embed=0\s+credits=/);
  });
});

/** runCli blocks this process's event loop, which the fake server needs; spawn asynchronously instead. */
function runCliAsync(dataDir: string, args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'hearth.js'), '--data-dir', dataDir, ...args]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('exit', (code) => resolve({ status: code ?? -1, stdout, stderr }));
  });
}
