// `npm run eval -- --data DIR [--data DIR ...] [--json] [--model ID|FOLDER]`
// Loads DIR/entries.jsonl into a fresh base through the same service path as POST /import
// (rows validated by the route's own schema), runs DIR/queries.jsonl, and prints hit@1, hit@5
// and MRR@10 for keyword-only, vector-only and hybrid retrieval, with indexing and query times.
// Format of DIR: /work/shared/eval-data/README.md (../shared/eval-data from the repository).
// --model: evaluate another embedding model than the default, by id (installed in the bundled folder) or
// by a model folder (copied into the temporary data folder's models, as `hearth model import` would).
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { Engine } from '../src/main/engine/engine.ts';
import { ENTRY_LIMITS, questionKey } from '../src/main/engine/knowledge/entries.types.ts';
import { importBody } from '../src/main/engine/knowledge/entries.routes.ts';
import type { SearchMethod } from '../src/main/engine/knowledge/search-index.ts';
import { silentLogger } from '../src/main/engine/shared/logger.ts';

interface DatasetEntry {
  id: string;
  question: string;
  answer: string;
}
interface DatasetQuery {
  query: string;
  entryId: string;
  altEntryIds?: string[];
}
interface EvalRow {
  dataset: string;
  method: SearchMethod;
  queries: number;
  hit1: number;
  hit5: number;
  mrr10: number;
  indexMs: number;
  queryP50Ms: number;
}

function readJsonl<T>(file: string): T[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

function parseArgs(argv: string[]): { dirs: string[]; json: boolean; model?: string } {
  const dirs: string[] = [];
  let json = false;
  let model: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--data') dirs.push(resolve(argv[++i] ?? ''));
    else if (argv[i] === '--model') model = argv[++i];
    else if (argv[i].startsWith('--data=')) dirs.push(resolve(argv[i].slice(7)));
    else if (argv[i] === '--json') json = true;
    else throw new Error(`Unknown argument ${argv[i]}. Usage: npm run eval -- --data DIR [--data DIR ...] [--json]`);
  }
  if (dirs.length === 0) throw new Error('Usage: npm run eval -- --data DIR [--data DIR ...] [--json] [--model ID|FOLDER]');
  return { dirs, json, model };
}

const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;
const cut = (text: string, max: number): string => [...text].slice(0, max).join('');

async function evaluate(engine: Engine, dir: string, model: string | undefined, log: (line: string) => void): Promise<EvalRow[]> {
  const dataset = basename(dir);
  const entries = readJsonl<DatasetEntry>(join(dir, 'entries.jsonl'));
  const queries = readJsonl<DatasetQuery>(join(dir, 'queries.jsonl'));
  const principal = engine.identity.authenticate(engine.identity.appSessionSecret);
  engine.credits.setBalance(principal.workspaceId, 1_000_000);
  let base = engine.bases.create(principal, { name: `eval ${dataset}`.slice(0, 120) });
  if (model) {
    // An empty base switches at once (the background pass has nothing to embed).
    engine.knowledge.changeModel(principal, base.id, model);
    await engine.knowledge.idle();
    base = engine.bases.require(principal, base.id);
  }

  // The API refuses answers past 2000 characters; the few longer ones are cut to that bound.
  const rows = entries.map((e) => ({ question: cut(e.question.trim(), ENTRY_LIMITS.question), answer: cut(e.answer.trim(), ENTRY_LIMITS.answer) }));
  // Load the model first, so indexMs is indexing and not the one-time model load.
  await (await engine.embeddings.get(base.embeddingModel)).embed(['warm-up'], 'query');
  const started = performance.now();
  let inserted = 0;
  let duplicates = 0;
  let conflicts = 0;
  for (let i = 0; i < rows.length; i += ENTRY_LIMITS.importRows) {
    const body = importBody.parse({ rows: rows.slice(i, i + ENTRY_LIMITS.importRows) });
    const result = await engine.knowledge.importRows(principal, base.id, body.rows.map((r) => ({ ...r, subject: r.subject ?? undefined })));
    inserted += result.inserted;
    duplicates += result.duplicates;
    conflicts += result.conflicts;
  }
  const indexMs = Math.round(performance.now() - started);
  // Near-duplicates land as drafts; every dataset entry is meant to be searchable, so they are approved (bulk, as the API would).
  const listed = engine.knowledge.listEntries(principal, base.id, { status: 'all', limit: 500, offset: 0 });
  let all = listed.items;
  for (let offset = 500; offset < listed.total; offset += 500) all = all.concat(engine.knowledge.listEntries(principal, base.id, { status: 'all', limit: 500, offset }).items);
  const drafts = all.filter((e) => e.status === 'draft').map((e) => e.id);
  for (let i = 0; i < drafts.length; i += ENTRY_LIMITS.bulkIds) engine.knowledge.bulk(principal, base.id, drafts.slice(i, i + ENTRY_LIMITS.bulkIds), 'approve');
  log(`${dataset} (${base.embeddingModel}): ${entries.length} entries (${inserted} inserted, ${duplicates} duplicate questions, ${conflicts} near-duplicates approved) in ${indexMs} ms; ${queries.length} queries`);

  // Dataset id -> entry id, through the question (duplicate questions share one entry).
  const idByKey = new Map(all.map((e) => [questionKey(e.question), e.id]));
  const entryIdOf = new Map(entries.map((e, i) => [e.id, idByKey.get(questionKey(rows[i].question))]));

  const out: EvalRow[] = [];
  for (const method of ['keyword', 'vector', 'hybrid'] as const) {
    let hit1 = 0;
    let hit5 = 0;
    let mrr = 0;
    const times: number[] = [];
    for (const q of queries) {
      const wanted = new Set([q.entryId, ...(q.altEntryIds ?? [])].map((id) => entryIdOf.get(id)).filter((id): id is string => !!id));
      const t = performance.now();
      const { hits } = await engine.knowledge.searchBase(base, q.query, 10, method);
      times.push(performance.now() - t);
      const rank = hits.findIndex((h) => wanted.has(h.id));
      if (rank === 0) hit1++;
      if (rank >= 0 && rank < 5) hit5++;
      if (rank >= 0) mrr += 1 / (rank + 1);
    }
    times.sort((a, b) => a - b);
    const n = queries.length;
    out.push({ dataset, method, queries: n, hit1: round(hit1 / n), hit5: round(hit5 / n), mrr10: round(mrr / n), indexMs, queryP50Ms: round(times[Math.floor(n / 2)] ?? 0, 2) });
  }
  return out;
}

const { dirs, json, model } = parseArgs(process.argv.slice(2));
const log = (line: string): void => void process.stderr.write(line + '\n');
const results: EvalRow[] = [];
for (const dir of dirs) {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-eval-'));
  let modelId = model;
  if (model && existsSync(model)) {
    modelId = basename(resolve(model));
    cpSync(resolve(model), join(dataDir, 'models', modelId), { recursive: true });
  }
  const engine = new Engine({ dataDir, logger: silentLogger });
  try {
    results.push(...(await evaluate(engine, dir, modelId, log)));
  } finally {
    await engine.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
if (json) {
  process.stdout.write(JSON.stringify(results) + '\n');
} else {
  process.stdout.write(`${'dataset'.padEnd(24)} ${'method'.padEnd(8)} ${'queries'.padStart(7)} ${'hit@1'.padStart(6)} ${'hit@5'.padStart(6)} ${'MRR@10'.padStart(7)} ${'indexMs'.padStart(8)} ${'queryP50Ms'.padStart(10)}\n`);
  for (const r of results) {
    process.stdout.write(
      `${r.dataset.padEnd(24)} ${r.method.padEnd(8)} ${String(r.queries).padStart(7)} ${r.hit1.toFixed(3).padStart(6)} ${r.hit5.toFixed(3).padStart(6)} ${r.mrr10.toFixed(3).padStart(7)} ${String(r.indexMs).padStart(8)} ${r.queryP50Ms.toFixed(2).padStart(10)}\n`,
    );
  }
}
