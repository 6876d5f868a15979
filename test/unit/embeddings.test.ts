import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Embedder } from '../../src/main/engine/embeddings/embedder.types.ts';
import { DEFAULT_MODEL_ID, defaultBundledModelsDir, LocalEmbeddingModels, UnknownModelError } from '../../src/main/engine/embeddings/embedding-models.ts';
import { silentLogger } from '../../src/main/engine/shared/logger.ts';

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

describe('the bundled default embedding model (real weights, no network)', () => {
  let userDir: string;
  let models: LocalEmbeddingModels;
  let embedder: Embedder;

  before(async () => {
    userDir = mkdtempSync(join(tmpdir(), 'hearth-models-'));
    // Small passes, so that a handful of texts already spans several of them.
    models = new LocalEmbeddingModels({ bundledDir: defaultBundledModelsDir(), userDir, logger: silentLogger, batchLimits: { maxTexts: 4, maxPaddedTokens: 4096 } });
    embedder = await models.get(models.defaultModelId);
  });

  after(async () => {
    await models.dispose();
    rmSync(userDir, { recursive: true, force: true });
  });

  it('is listed as bundled, 384-d, English', () => {
    const [info] = models.list();
    assert.equal(info.id, DEFAULT_MODEL_ID);
    assert.equal(info.origin, 'bundled');
    assert.equal(info.dimensions, 384);
    assert.equal(info.languages, 'en');
    assert.ok(info.sizeBytes > 20_000_000, 'the real weights, not a stub');
  });

  it('scores a paraphrase far above an unrelated sentence', async () => {
    const { vectors } = await embedder.embed(['How do I reset my password?', 'I forgot my password; how can I change it?', 'The train to Hamburg leaves at noon.'], 'passage');
    const paraphrase = dot(vectors[0], vectors[1]);
    const unrelated = dot(vectors[0], vectors[2]);
    assert.ok(paraphrase > 0.7, `paraphrase similarity ${paraphrase}`);
    assert.ok(unrelated < 0.2, `unrelated similarity ${unrelated}`);
    assert.ok(paraphrase - unrelated > 0.5);
  });

  it('returns unit-length vectors of the declared size and counts tokens', async () => {
    const { vectors, tokens } = await embedder.embed(['hello world', 'a somewhat longer sentence about embeddings and search'], 'query');
    for (const v of vectors) {
      assert.equal(v.length, embedder.dimensions);
      assert.ok(Math.abs(Math.sqrt(dot(v, v)) - 1) < 1e-4);
    }
    // [CLS] hello world [SEP] = 4; the second text has more.
    assert.ok(tokens > 8, `tokens ${tokens}`);
    assert.deepEqual(await embedder.embed([], 'query'), { vectors: [], tokens: 0 });
  });

  it('keeps input order across passes, whatever the text lengths', async () => {
    const texts = Array.from({ length: 11 }, (_, i) => `${'word '.repeat((i * 7) % 23)}sentence number ${i}`);
    const together = await embedder.embed(texts, 'passage');
    assert.equal(together.vectors.length, texts.length);
    for (let i = 0; i < texts.length; i++) {
      const alone = await embedder.embed([texts[i]], 'passage');
      assert.ok(dot(alone.vectors[0], together.vectors[i]) > 0.999, `text ${i} came back in the wrong place`);
    }
    const oneByOne = await Promise.all(texts.map((t) => embedder.embed([t], 'passage')));
    assert.equal(together.tokens, oneByOne.reduce((sum, r) => sum + r.tokens, 0));
  });

  it('truncates long texts instead of failing', async () => {
    const { vectors, tokens } = await embedder.embed(['lorem ipsum dolor '.repeat(400)], 'passage');
    assert.equal(vectors[0].length, 384);
    assert.equal(tokens, 256);
  });

  it('caches the loaded embedder and refuses unknown models with a 404', async () => {
    assert.equal(await models.get(DEFAULT_MODEL_ID), embedder);
    await assert.rejects(models.get('no-such-model'), (e: unknown) => e instanceof UnknownModelError && e.status === 404);
  });

  it('finds models in the user folder too, reading hearth-model.json prefixes', async () => {
    const copy = join(userDir, 'minilm-with-prefix');
    cpSync(join(defaultBundledModelsDir(), DEFAULT_MODEL_ID), copy, { recursive: true });
    writeFileSync(join(copy, 'hearth-model.json'), JSON.stringify({ languages: 'en', queryPrefix: 'query: ', passagePrefix: 'passage: ' }));
    const info = models.list().find((m) => m.id === 'minilm-with-prefix');
    assert.equal(info?.origin, 'user');
    const prefixed = await models.get('minilm-with-prefix');
    const text = 'Where is the train station?';
    const [withPrefix] = (await prefixed.embed([text], 'query')).vectors;
    const [explicit] = (await embedder.embed([`query: ${text}`], 'query')).vectors;
    assert.ok(dot(withPrefix, explicit) > 0.999, 'the query prefix is applied');
  });
});
