// Ask latency over real HTTP against a scripted OpenAI-compatible server that answers at once, so the
// numbers are Hearth's own cost (retrieval, prompt, provider, ledger), not a model's. Compared with
// search (the same retrieval, no model) in the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../src/main/engine/engine.ts';
import { startServer } from '../../src/main/engine/http/server.ts';
import { silentLogger } from '../../src/main/engine/shared/logger.ts';
import { FakeLlmServer } from '../../test/helpers/fake-llm-server.ts';
import type { BenchRow } from './bench.types.ts';

const ENTRIES = 500;
const ROUNDS = 60;
const TOPICS = ['password', 'refund', 'delivery', 'invoice', 'account', 'printer', 'holiday', 'parking', 'laptop', 'badge'];

function percentile(sorted: number[], p: number): number {
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10;
}

export async function run(): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-ask-'));
  const fake = await FakeLlmServer.start();
  const engine = new Engine({ dataDir, logger: silentLogger });
  const server = await startServer(engine, { port: 0 });
  try {
    const ws = engine.identity.ensureDefaults().workspace.id;
    engine.credits.setBalance(ws, 1e6);
    const token = engine.identity.createToken({ workspaceId: ws, userId: engine.identity.resolveUser(ws).id, name: 'bench', access: 'write', resources: ['knowledge'] }).secret;
    const call = async (method: string, path: string, body?: unknown): Promise<Response> => {
      const res = await fetch(server.url + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res;
    };
    const kb = ((await (await call('POST', '/api/ai/knowledge/bases', { name: 'Bench' })).json()) as { id: string }).id;
    const rows = Array.from({ length: ENTRIES }, (_, i) => {
      const topic = TOPICS[i % TOPICS.length];
      return { subject: 'General', question: `Question ${i} about the ${topic} policy, case ${i}?`, answer: `For ${topic} case ${i}, follow procedure ${i} described in the handbook, section ${i % 40}.` };
    });
    await call('POST', `/api/ai/knowledge/bases/${kb}/import`, { rows });
    // Time a settled base: wait until the index has every entry.
    for (;;) {
      const base = (await (await call('GET', `/api/ai/knowledge/bases/${kb}`)).json()) as { indexing: boolean };
      if (!base.indexing) break;
      await new Promise((r) => setTimeout(r, 200));
    }

    const time = async (path: string, body: (i: number) => unknown): Promise<number[]> => {
      await call('POST', path, body(0)); // warm-up: model load, prepared statements
      const ms: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const started = performance.now();
        await (await call('POST', path, body(i))).json();
        ms.push(performance.now() - started);
      }
      return ms.sort((a, b) => a - b);
    };
    const query = (i: number): string => `what is the ${TOPICS[i % TOPICS.length]} procedure for case ${i}`;
    await time(`/api/ai/knowledge/bases/${kb}/search`, (i) => ({ query: query(i), topK: 6 }));
    const search = await time(`/api/ai/knowledge/bases/${kb}/search`, (i) => ({ query: query(i), topK: 6 }));
    const noModel = await time(`/api/ai/knowledge/bases/${kb}/ask`, (i) => ({ query: query(i), minScore: 0 }));
    engine.llm.configure(ws, { baseUrl: fake.baseUrl, model: 'bench', stream: false });
    const plain = await time(`/api/ai/knowledge/bases/${kb}/ask`, (i) => ({ query: query(i), minScore: 0 }));
    engine.llm.configure(ws, { baseUrl: fake.baseUrl, model: 'bench', stream: true });
    const streamed = await time(`/api/ai/knowledge/bases/${kb}/ask`, (i) => ({ query: query(i), minScore: 0 }));
    const row = (name: string, ms: number[]): BenchRow => ({
      group: 'ask',
      name: `${name} (median of ${ROUNDS}, ${ENTRIES} entries)`,
      value: percentile(ms, 50),
      unit: 'ms',
      note: `p95 ${percentile(ms, 95)}`,
    });
    return [
      row('search, topK 6 (baseline)', search),
      row('ask without a model (best entry)', noModel),
      row('ask, instant fake model, plain JSON', plain),
      row('ask, instant fake model, SSE stream', streamed),
    ];
  } finally {
    await server.dispose();
    await engine.dispose();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
