import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as tar from 'tar';
import * as yazl from 'yazl';
import { DEFAULT_MODEL_ID, defaultBundledModelsDir } from '../../src/main/engine/embeddings/embedding-models.ts';
import { PROJECT_ROOT, TestHearth } from '../helpers/hearth.ts';

const BUNDLED = join(defaultBundledModelsDir(), DEFAULT_MODEL_ID);
const MODEL_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'];

interface ModelJson {
  id: string;
  origin: string;
  dimensions: number;
  languages: string;
  isDefault?: boolean;
}
interface JobJson {
  id: string;
  status: 'running' | 'succeeded' | 'failed';
  receivedBytes: number;
  model: ModelJson | null;
  error: string | null;
}

/**
 * A stand-in for the Hugging Face hub on 127.0.0.1, speaking its download layout:
 * GET /{owner}/{repo}/resolve/main/{file}. `test/minilm` has the bundled model's files;
 * `test/no-onnx` has everything but weights; anything else is 404.
 */
async function startMockHub(): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const match = /^\/test\/([^/]+)\/resolve\/main\/(.+)$/.exec(req.url ?? '');
    const repo = match?.[1];
    const file = match?.[2] ?? '';
    if (file === 'sentence_bert_config.json' && repo === 'minilm') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ max_seq_length: 128, do_lower_case: false }));
      return;
    }
    const servable = (repo === 'minilm' && MODEL_FILES.includes(file)) || (repo === 'no-onnx' && MODEL_FILES.includes(file) && !file.endsWith('.onnx'));
    if (!servable) {
      res.writeHead(404).end('Entry not found');
      return;
    }
    const path = join(BUNDLED, file);
    res.writeHead(200, { 'content-length': statSync(path).size, 'content-type': 'application/octet-stream' });
    createReadStream(path).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The real CLI, run asynchronously so that the mock hub in this process can answer it. */
function cli(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'hearth.js'), '--data-dir', dataDir, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr }));
  });
}

async function zipFolder(folder: string, zipPath: string, prefix: string): Promise<void> {
  const zip = new yazl.ZipFile();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else zip.addFile(full, `${prefix}/${relative(folder, full)}`);
    }
  };
  walk(folder);
  zip.end();
  await new Promise<void>((resolve, reject) => zip.outputStream.pipe(createWriteStream(zipPath)).on('close', resolve).on('error', reject));
}

function userModelsDir(hearth: TestHearth): string {
  return join(hearth.dataDir, 'models');
}

/** Nothing half-written: only finished model folders, no staging folders. */
function assertNoLeftovers(hearth: TestHearth): void {
  const dir = userModelsDir(hearth);
  if (!existsSync(dir)) return;
  assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.')), []);
}

describe('embedding models: list, install from the hub, import (API and CLI)', () => {
  let hub: Awaited<ReturnType<typeof startMockHub>>;
  let hearth: TestHearth;
  let scratch: string;

  before(async () => {
    hub = await startMockHub();
    process.env.HEARTH_HF_ENDPOINT = hub.url;
    hearth = await TestHearth.start();
    scratch = mkdtempSync(join(tmpdir(), 'hearth-model-src-'));
  });

  after(async () => {
    await hearth.stop();
    await hub.close();
    delete process.env.HEARTH_HF_ENDPOINT;
    rmSync(scratch, { recursive: true, force: true });
  });

  async function waitForJob(jobId: string): Promise<JobJson> {
    for (let i = 0; i < 300; i++) {
      const res = await hearth.request<{ job: JobJson }>('GET', `/api/app/models/jobs/${jobId}`, { token: hearth.appSession });
      assert.equal(res.status, 200);
      if (res.body.job.status !== 'running') return res.body.job;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('install job did not finish');
  }

  it('lists the bundled default model to any token with knowledge:read', async () => {
    const res = await hearth.request<{ defaultModelId: string; models: ModelJson[] }>('GET', '/api/app/models', { token: hearth.token({ access: 'read', resources: ['knowledge'] }) });
    assert.equal(res.status, 200);
    assert.equal(res.body.defaultModelId, DEFAULT_MODEL_ID);
    const model = res.body.models.find((m) => m.id === DEFAULT_MODEL_ID);
    assert.deepEqual({ origin: model?.origin, dimensions: model?.dimensions, isDefault: model?.isDefault }, { origin: 'bundled', dimensions: 384, isDefault: true });
  });

  it('installs from the hub in the background, with progress, and the model then embeds', async () => {
    const res = await hearth.request<{ job: JobJson }>('POST', '/api/app/models/install', { token: hearth.appSession, body: { repo: 'test/minilm', name: 'hub-minilm' } });
    assert.equal(res.status, 202);
    assert.equal(res.body.job.status, 'running');
    const job = await waitForJob(res.body.job.id);
    assert.equal(job.status, 'succeeded', job.error ?? '');
    assert.ok(job.receivedBytes > 20_000_000, `received ${job.receivedBytes} bytes`);
    assert.equal(job.model?.id, 'hub-minilm');
    assert.equal(job.model?.origin, 'user');
    assert.ok(hub.requests.includes('/test/minilm/resolve/main/onnx/model_quantized.onnx'));

    const manifest = JSON.parse(readFileSync(join(userModelsDir(hearth), 'hub-minilm', 'hearth-model.json'), 'utf8')) as { maxTokens: number };
    assert.equal(manifest.maxTokens, 128, 'max_seq_length from sentence_bert_config.json');
    const list = await hearth.request<{ models: ModelJson[] }>('GET', '/api/app/models', { token: hearth.appSession });
    assert.ok(list.body.models.some((m) => m.id === 'hub-minilm' && m.origin === 'user'));
    const embedder = await hearth.engine.embeddings.get('hub-minilm');
    const { vectors } = await embedder.embed(['does it work?'], 'query');
    assert.equal(vectors[0].length, 384);
    assertNoLeftovers(hearth);
  });

  it('fails a hub install without ONNX weights and leaves nothing behind', async () => {
    const res = await hearth.request<{ job: JobJson }>('POST', '/api/app/models/install', { token: hearth.appSession, body: { repo: 'test/no-onnx' } });
    assert.equal(res.status, 202);
    const job = await waitForJob(res.body.job.id);
    assert.equal(job.status, 'failed');
    assert.match(job.error ?? '', /ONNX/);
    assert.ok(!existsSync(join(userModelsDir(hearth), 'no-onnx')));
    assertNoLeftovers(hearth);
  });

  it('refuses bad install requests with the field named, and tokens with 403', async () => {
    const badRepo = await hearth.request<{ details: { fieldErrors: Record<string, string[]> } }>('POST', '/api/app/models/install', { token: hearth.appSession, body: { repo: 'not a repo' } });
    assert.equal(badRepo.status, 400);
    assert.ok(badRepo.body.details.fieldErrors.repo);
    const taken = await hearth.request<{ details: { fieldErrors: Record<string, string[]> } }>('POST', '/api/app/models/install', { token: hearth.appSession, body: { repo: 'test/minilm', name: DEFAULT_MODEL_ID } });
    assert.equal(taken.status, 400);
    assert.match(taken.body.details.fieldErrors.name[0], /already exists/);
    const byToken = await hearth.request<{ code: string }>('POST', '/api/app/models/install', { token: hearth.token(), body: { repo: 'test/minilm' } });
    assert.equal(byToken.status, 403);
    assert.equal(byToken.body.code, 'FORBIDDEN');
    const unknownJob = await hearth.request('GET', '/api/app/models/jobs/0b9f4a52-6a43-4d2e-9c1f-2f3a4b5c6d7e', { token: hearth.appSession });
    assert.equal(unknownJob.status, 404);
  });

  it('imports a model folder, a .tar.gz and a .zip', async () => {
    const folder = join(scratch, 'folder-model');
    cpSync(BUNDLED, folder, { recursive: true });
    const fromFolder = await hearth.request<{ model: ModelJson }>('POST', '/api/app/models/import', { token: hearth.appSession, body: { path: folder } });
    assert.equal(fromFolder.status, 201, JSON.stringify(fromFolder.body));
    assert.equal(fromFolder.body.model.id, 'folder-model');
    assert.ok(existsSync(folder), 'the source folder is copied, not moved');

    const tgz = join(scratch, 'tar-model.tar.gz');
    await tar.c({ gzip: true, file: tgz, cwd: scratch }, ['folder-model']);
    const fromTar = await hearth.request<{ model: ModelJson }>('POST', '/api/app/models/import', { token: hearth.appSession, body: { path: tgz, name: 'from-tar' } });
    assert.equal(fromTar.status, 201, JSON.stringify(fromTar.body));
    assert.equal(fromTar.body.model.id, 'from-tar');

    const zip = join(scratch, 'archive.zip');
    await zipFolder(folder, zip, 'zipped-minilm');
    const fromZip = await hearth.request<{ model: ModelJson }>('POST', '/api/app/models/import', { token: hearth.appSession, body: { path: zip } });
    assert.equal(fromZip.status, 201, JSON.stringify(fromZip.body));
    assert.equal(fromZip.body.model.id, 'zipped-minilm', 'named after the archive\'s top folder');
    const embedder = await hearth.engine.embeddings.get('zipped-minilm');
    assert.equal((await embedder.embed(['imported'], 'passage')).vectors[0].length, 384);
    assertNoLeftovers(hearth);
  });

  it('refuses folders that are not working models, naming the path field', async () => {
    const missing = join(scratch, 'no-tokenizer');
    cpSync(BUNDLED, missing, { recursive: true });
    rmSync(join(missing, 'tokenizer.json'));
    const res = await hearth.request<{ details: { fieldErrors: Record<string, string[]> } }>('POST', '/api/app/models/import', { token: hearth.appSession, body: { path: missing } });
    assert.equal(res.status, 400);
    assert.match(res.body.details.fieldErrors.path[0], /tokenizer\.json is missing/);

    const broken = join(scratch, 'broken-weights');
    cpSync(BUNDLED, broken, { recursive: true });
    writeFileSync(join(broken, 'onnx', 'model_quantized.onnx'), 'not an onnx file');
    const res2 = await hearth.request<{ details: { fieldErrors: Record<string, string[]> } }>('POST', '/api/app/models/import', { token: hearth.appSession, body: { path: broken } });
    assert.equal(res2.status, 400);
    assert.match(res2.body.details.fieldErrors.path[0], /did not load/);

    const nowhere = await hearth.request<{ details: { fieldErrors: Record<string, string[]> } }>('POST', '/api/app/models/import', { token: hearth.appSession, body: { path: join(scratch, 'nope') } });
    assert.equal(nowhere.status, 400);
    assert.ok(nowhere.body.details.fieldErrors.path);
    assert.ok(!existsSync(join(userModelsDir(hearth), 'no-tokenizer')) && !existsSync(join(userModelsDir(hearth), 'broken-weights')));
    assertNoLeftovers(hearth);
  });

  it('CLI: model install prints byte progress, import takes an archive, list shows both', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-cli-models-'));
    try {
      const install = await cli(dataDir, ['model', 'install', 'test/minilm', '--json'], { HEARTH_HF_ENDPOINT: hub.url });
      assert.equal(install.status, 0, install.stderr);
      assert.equal((JSON.parse(install.stdout) as ModelJson).id, 'minilm');
      assert.match(install.stderr, /onnx\/model_quantized\.onnx: [\d.]+ MB of 22\.9 MB \(100%\)/);

      const archive = join(scratch, 'cli-model.tar.gz');
      mkdirSync(join(scratch, 'cli'), { recursive: true });
      cpSync(BUNDLED, join(scratch, 'cli', 'cli-model'), { recursive: true });
      await tar.c({ gzip: true, file: archive, cwd: join(scratch, 'cli') }, ['cli-model']);
      const imported = await cli(dataDir, ['model', 'import', archive]);
      assert.equal(imported.status, 0, imported.stderr);
      assert.match(imported.stdout, /Imported cli-model/);

      const list = await cli(dataDir, ['model', 'list', '--json']);
      const ids = (JSON.parse(list.stdout) as { models: ModelJson[] }).models.map((m) => m.id);
      assert.deepEqual(ids, [DEFAULT_MODEL_ID, 'cli-model', 'minilm']);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('CLI: offline install fails with advice to import instead', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-cli-offline-'));
    try {
      // Port 1 on loopback: nothing listens, the connection is refused like on a machine without internet.
      const res = await cli(dataDir, ['model', 'install', 'Xenova/multilingual-e5-small'], { HEARTH_HF_ENDPOINT: 'http://127.0.0.1:1' });
      assert.equal(res.status, 1);
      assert.match(res.stderr, /Cannot reach http:\/\/127\.0\.0\.1:1/);
      assert.match(res.stderr, /hearth model import/);
      assert.deepEqual(readdirSync(join(dataDir, 'models')), []);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
