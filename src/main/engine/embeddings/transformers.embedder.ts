import type * as TransformersLib from '@huggingface/transformers';
import type { PreTrainedModel, PreTrainedTokenizer, Tensor } from '@huggingface/transformers';
import { dirname } from 'node:path';
import type { EmbedPurpose, Embedder, EmbeddingResult } from './embedder.types.ts';
import type { ModelDescriptor } from './model-folder.ts';

type Transformers = typeof TransformersLib;

/** Limits per forward pass: many short texts go together; long texts go in small groups to bound memory. */
export interface BatchLimits {
  /** At most this many texts per forward pass. */
  maxTexts: number;
  /**
   * At most this many padded tokens (texts x longest text) per pass. Memory grows with it:
   * 32 texts of 512 tokens took 4.9 GB RSS with MiniLM. At 2048, embedding 256-token texts adds ~300 MB RSS
   * (4096: ~400 MB) at the same throughput; short texts (20 tokens) still go 32 at a time.
   */
  maxPaddedTokens: number;
}

export const DEFAULT_BATCH_LIMITS: BatchLimits = { maxTexts: 32, maxPaddedTokens: 2048 };

interface BatchJob {
  texts: string[];
  resolve(vectors: Float32Array[]): void;
  reject(error: unknown): void;
}

/**
 * ONNX Runtime's worker threads spin while waiting for work by default. On a 2-core machine shared with the UI
 * (or other processes) that spinning steals the cores the next pass needs: with it off, query p50 went from
 * 13-22 ms to 6-7 ms and import throughput rose by about half under load, and an idle app burns no CPU.
 */
const SESSION_OPTIONS = {
  // The CPU arena keeps its peak for the life of the session: 650 MB RSS after embedding 256-token texts, 400 without it.
  enableCpuMemArena: false,
  extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } },
};

let transformersModule: Promise<Transformers> | undefined;
let loadChain: Promise<unknown> = Promise.resolve();

/**
 * Imported on first use only, so that `hearth serve` starts without paying for ONNX Runtime.
 * Remote models are switched off once, for the whole process: Hearth never downloads at load time.
 */
function transformers(): Promise<Transformers> {
  transformersModule ??= import('@huggingface/transformers').then((module) => {
    module.env.allowRemoteModels = false;
    module.env.allowLocalModels = true;
    module.env.useFSCache = false;
    return module;
  });
  return transformersModule;
}

/** transformers.js resolves model names against one global folder, so loads take turns. */
function serialized<T>(work: () => Promise<T>): Promise<T> {
  const run = loadChain.then(work, work);
  loadChain = run.catch(() => undefined);
  return run;
}

function sliceRows(tensor: Tensor): Float32Array[] {
  const [rows, dims] = tensor.dims;
  const data = tensor.data as Float32Array;
  const out: Float32Array[] = [];
  // slice, not subarray: each vector owns its memory instead of pinning the whole batch.
  for (let r = 0; r < rows; r++) out.push(data.slice(r * dims, (r + 1) * dims));
  return out;
}

/**
 * Mean of each text's token vectors over its attention mask, one vector per text. The library's
 * mean_pooling walks the tensor column by column and converts every mask value from BigInt; this
 * walks it row by row and skips padding, the same numbers at a fraction of the cost on a big import.
 */
function meanPoolRows(hidden: Tensor, mask: Tensor): Float32Array[] {
  const [batch, tokens, dims] = hidden.dims;
  const data = hidden.data as Float32Array;
  const attention = mask.data as BigInt64Array;
  const out: Float32Array[] = [];
  const sum = new Float64Array(dims);
  for (let b = 0; b < batch; b++) {
    sum.fill(0);
    let count = 0;
    for (let t = 0; t < tokens; t++) {
      if (attention[b * tokens + t] === 0n) continue;
      count++;
      const offset = (b * tokens + t) * dims;
      for (let j = 0; j < dims; j++) sum[j] += data[offset + j];
    }
    const vector = new Float32Array(dims);
    for (let j = 0; j < dims; j++) vector[j] = count > 0 ? sum[j] / count : 0;
    out.push(vector);
  }
  return out;
}

function l2Normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] /= norm;
  return vector;
}

/**
 * A sentence-transformers ONNX model run by transformers.js on ONNX Runtime (CPU).
 *
 * Work is split into forward passes that run one at a time; query passes jump ahead of
 * passage passes, so a search typed during a large import waits for one pass, not the import.
 */
export class TransformersEmbedder implements Embedder {
  readonly modelId: string;
  readonly dimensions: number;
  readonly descriptor: ModelDescriptor;
  private readonly tokenizer: PreTrainedTokenizer;
  private readonly model: PreTrainedModel;
  private readonly lib: Transformers;
  private readonly limits: BatchLimits;
  private readonly queryJobs: BatchJob[] = [];
  private readonly passageJobs: BatchJob[] = [];
  private draining: Promise<void> | undefined;
  private disposed = false;

  private constructor(descriptor: ModelDescriptor, lib: Transformers, tokenizer: PreTrainedTokenizer, model: PreTrainedModel, limits: BatchLimits) {
    this.descriptor = descriptor;
    this.modelId = descriptor.id;
    this.dimensions = descriptor.dimensions;
    this.lib = lib;
    this.tokenizer = tokenizer;
    this.model = model;
    this.limits = limits;
  }

  static async load(descriptor: ModelDescriptor, limits: BatchLimits = DEFAULT_BATCH_LIMITS): Promise<TransformersEmbedder> {
    const lib = await transformers();
    return serialized(async () => {
      lib.env.localModelPath = dirname(descriptor.path);
      const tokenizer = await lib.AutoTokenizer.from_pretrained(descriptor.id, { local_files_only: true });
      const model = await lib.AutoModel.from_pretrained(descriptor.id, {
        local_files_only: true,
        dtype: descriptor.dtype as 'q8',
        subfolder: descriptor.onnxSubfolder,
        use_external_data_format: descriptor.externalData,
        device: 'cpu',
        session_options: SESSION_OPTIONS,
      });
      return new TransformersEmbedder(descriptor, lib, tokenizer, model, limits);
    });
  }

  async embed(texts: readonly string[], purpose: EmbedPurpose): Promise<EmbeddingResult> {
    if (this.disposed) throw new Error(`Embedding model ${this.modelId} was disposed.`);
    if (texts.length === 0) return { vectors: [], tokens: 0 };
    const prefix = purpose === 'query' ? this.descriptor.queryPrefix : this.descriptor.passagePrefix;
    const inputs = texts.map((t) => prefix + t);
    const lengths = inputs.map((t) => Math.min(this.tokenizer.encode(t).length, this.descriptor.maxTokens));
    const tokens = lengths.reduce((a, b) => a + b, 0);

    // Texts of similar length share a pass, so little of each pass is padding.
    const order = inputs.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b]);
    const groups: number[][] = [];
    let group: number[] = [];
    for (const index of order) {
      const longest = lengths[index]; // ascending order: the newcomer is the longest so far
      if (group.length > 0 && (group.length >= this.limits.maxTexts || (group.length + 1) * longest > this.limits.maxPaddedTokens)) {
        groups.push(group);
        group = [];
      }
      group.push(index);
    }
    groups.push(group);

    const vectors = new Array<Float32Array>(inputs.length);
    await Promise.all(
      groups.map(async (indices) => {
        const batch = await this.enqueue(indices.map((i) => inputs[i]), purpose);
        indices.forEach((original, k) => (vectors[original] = batch[k]));
      }),
    );
    return { vectors, tokens };
  }

  private enqueue(texts: string[], purpose: EmbedPurpose): Promise<Float32Array[]> {
    return new Promise((resolve, reject) => {
      (purpose === 'query' ? this.queryJobs : this.passageJobs).push({ texts, resolve, reject });
      void this.drain();
    });
  }

  private drain(): Promise<void> {
    this.draining ??= (async () => {
      try {
        for (let job = this.nextJob(); job; job = this.nextJob()) {
          try {
            job.resolve(await this.forward(job.texts));
          } catch (error) {
            job.reject(error);
          }
        }
      } finally {
        this.draining = undefined;
      }
    })();
    return this.draining;
  }

  private nextJob(): BatchJob | undefined {
    return this.queryJobs.shift() ?? this.passageJobs.shift();
  }

  private async forward(texts: string[]): Promise<Float32Array[]> {
    if (this.disposed) throw new Error(`Embedding model ${this.modelId} was disposed.`);
    const encoded = this.tokenizer(texts, { padding: true, truncation: true, max_length: this.descriptor.maxTokens });
    const output = (await this.model.forward(encoded)) as Record<string, Tensor | undefined>;
    let rows: Float32Array[];
    if (output.sentence_embedding) {
      // Some sentence-transformers exports already include the pooling layer.
      rows = sliceRows(output.sentence_embedding);
    } else {
      const hidden = output.last_hidden_state ?? output.token_embeddings;
      if (!hidden) throw new Error(`Model ${this.modelId} returned neither last_hidden_state nor sentence_embedding.`);
      rows = this.descriptor.pooling === 'cls' ? sliceRows(hidden.slice(null, 0, null)) : meanPoolRows(hidden, encoded.attention_mask);
    }
    return this.descriptor.normalize ? rows.map(l2Normalize) : rows;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const error = new Error(`Embedding model ${this.modelId} was disposed.`);
    for (const job of [...this.queryJobs.splice(0), ...this.passageJobs.splice(0)]) job.reject(error);
    // Never free the session under a pass that is still running.
    await this.draining;
    await this.model.dispose();
  }
}
