// Embedding runtime of the default (bundled) model: cold load, import throughput, query latency.
// Data: ../shared/eval-data/faq/stackfaq (override with HEARTH_BENCH_FAQ=DIR holding entries.jsonl + queries.jsonl).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultBundledModelsDir, LocalEmbeddingModels } from '../../src/main/engine/embeddings/embedding-models.ts';
import { silentLogger } from '../../src/main/engine/shared/logger.ts';
import type { BenchRow } from './bench.types.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const faqDir = process.env.HEARTH_BENCH_FAQ ?? join(root, '..', 'shared', 'eval-data', 'faq', 'stackfaq');

/** Texts per embed call, as an import of that many entries would send them. */
const IMPORT_CALL_SIZE = 500;
const IMPORT_TEXTS = 2000;
const QUERY_RUNS = 200;

function readJsonl<T>(file: string): T[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Exactly 12 words each: a paraphrased question, continued with the words of the next ones when short. */
function twelveWordQuestions(queries: string[], count: number): string[] {
  const words = queries.join(' ').split(/\s+/).filter(Boolean);
  const out: string[] = [];
  for (let i = 0; out.length < count; i += 12) out.push(words.slice(i % (words.length - 12), (i % (words.length - 12)) + 12).join(' '));
  return out;
}

async function timeImport(embed: (texts: string[]) => Promise<number>, texts: string[]): Promise<{ textsPerSec: number; tokensPerText: number }> {
  let tokens = 0;
  const started = performance.now();
  for (let i = 0; i < texts.length; i += IMPORT_CALL_SIZE) tokens += await embed(texts.slice(i, i + IMPORT_CALL_SIZE));
  const seconds = (performance.now() - started) / 1000;
  return { textsPerSec: round(texts.length / seconds), tokensPerText: round(tokens / texts.length) };
}

export async function run(): Promise<BenchRow[]> {
  const entries = readJsonl<{ question: string; answer: string }>(join(faqDir, 'entries.jsonl'));
  const queries = readJsonl<{ query: string }>(join(faqDir, 'queries.jsonl')).map((q) => q.query);
  const models = new LocalEmbeddingModels({ bundledDir: defaultBundledModelsDir(), userDir: join(root, '.bench-no-user-models'), logger: silentLogger });
  const rows: BenchRow[] = [];
  const group = 'embeddings';
  try {
    const rssBefore = process.memoryUsage().rss;
    let started = performance.now();
    const embedder = await models.get(models.defaultModelId);
    await embedder.embed(['warm up'], 'query');
    rows.push({ group, name: `load ${embedder.modelId} + first embed (cold)`, value: Math.round(performance.now() - started), unit: 'ms' });

    // Import-like: the short texts an FAQ import embeds (questions, alternative phrasings), many per call.
    const shortTexts = Array.from({ length: IMPORT_TEXTS }, (_, i) => (i < entries.length ? entries[i].question : queries[i % queries.length]));
    const short = await timeImport(async (t) => (await embedder.embed(t, 'passage')).tokens, shortTexts);
    rows.push({ group, name: 'import embedding, short questions', value: short.textsPerSec, unit: 'texts/s', note: `${IMPORT_TEXTS} texts, ${short.tokensPerText} tokens each on average, ${IMPORT_CALL_SIZE} per call; target >= 300` });
    const long = await timeImport(async (t) => (await embedder.embed(t, 'passage')).tokens, entries.map((e) => `${e.question}\n${e.answer}`));
    rows.push({ group, name: 'embedding, question + answer texts', value: long.textsPerSec, unit: 'texts/s', note: `${entries.length} texts, ${long.tokensPerText} tokens each (cut at 256)` });

    const questions = twelveWordQuestions(queries, QUERY_RUNS);
    const latencies: number[] = [];
    for (const q of questions) {
      started = performance.now();
      await embedder.embed([q], 'query');
      latencies.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);
    rows.push({ group, name: 'query embedding, 12-word question, p50', value: round(percentile(latencies, 50), 2), unit: 'ms', note: 'target <= 15' });
    rows.push({ group, name: 'query embedding, 12-word question, p95', value: round(percentile(latencies, 95), 2), unit: 'ms' });

    // A search typed while an import is embedding: queries jump ahead of queued import passes.
    const busy: number[] = [];
    const importing = embedder.embed(shortTexts, 'passage');
    for (const q of questions.slice(0, 30)) {
      started = performance.now();
      await embedder.embed([q], 'query');
      busy.push(performance.now() - started);
    }
    await importing;
    busy.sort((a, b) => a - b);
    rows.push({ group, name: 'query embedding during an import, p50', value: round(percentile(busy, 50), 2), unit: 'ms', note: 'waits for at most one running pass' });
    rows.push({ group, name: 'RSS added by the loaded model after the runs', value: Math.round((process.memoryUsage().rss - rssBefore) / 1e6), unit: 'MB' });
  } finally {
    await models.dispose();
  }
  return rows;
}
