import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError } from '../shared/errors.ts';
import type { Logger } from '../shared/logger.ts';
import type { Embedder, EmbeddingModels, ModelInfo } from './embedder.types.ts';
import { scanModelsRoot, type ModelDescriptor } from './model-folder.ts';
import { DEFAULT_BATCH_LIMITS, TransformersEmbedder, type BatchLimits } from './transformers.embedder.ts';

/** Bundled in the repository (resources/models), so semantic search works right after `npm ci`. */
export const DEFAULT_MODEL_ID = 'all-MiniLM-L6-v2-int8';

/**
 * <project root>/resources/models, found by walking up from this file so that it holds both when
 * the engine runs from src/ (CLI, tests) and from the bundled out/main (electron-vite dev).
 * The packaged Electron app passes process.resourcesPath/models instead.
 */
export function defaultBundledModelsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'resources', 'models');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'resources', 'models');
    dir = parent;
  }
}

export interface EmbeddingModelsOptions {
  /** Models shipped with the app; searched first. */
  bundledDir: string;
  /** The user's models (<dataDir>/models): installed from the hub or imported. */
  userDir: string;
  logger: Logger;
  defaultModelId?: string;
  batchLimits?: BatchLimits;
}

export class UnknownModelError extends ApiError {
  constructor(modelId: string, known: string[]) {
    super(404, 'NOT_FOUND', `Embedding model ${modelId} not found. Installed: ${known.join(', ') || 'none'}. Add one with \`hearth model install\` or \`hearth model import\`.`, { modelId, installed: known });
    this.name = 'UnknownModelError';
  }
}

/**
 * The models on this machine: bundled ones first, then the user's folder. The folder name is the
 * model id. Embedders load lazily on first use and stay cached until the engine is disposed.
 */
export class LocalEmbeddingModels implements EmbeddingModels {
  readonly defaultModelId: string;
  readonly bundledDir: string;
  readonly userDir: string;
  private readonly logger: Logger;
  private readonly batchLimits: BatchLimits;
  private readonly loaded = new Map<string, Promise<TransformersEmbedder>>();
  private disposed = false;

  constructor(options: EmbeddingModelsOptions) {
    this.bundledDir = options.bundledDir;
    this.userDir = options.userDir;
    this.logger = options.logger;
    this.defaultModelId = options.defaultModelId ?? DEFAULT_MODEL_ID;
    this.batchLimits = options.batchLimits ?? DEFAULT_BATCH_LIMITS;
  }

  /** Every usable model; a user folder with the same name as a bundled model is shadowed by it. */
  descriptors(): ModelDescriptor[] {
    const bundled = scanModelsRoot(this.bundledDir, 'bundled');
    const user = scanModelsRoot(this.userDir, 'user');
    for (const problem of [...bundled.invalid, ...user.invalid]) this.logger.warn(`Ignoring model folder ${problem.path}: ${problem.reason}`);
    const ids = new Set(bundled.models.map((m) => m.id));
    return [...bundled.models, ...user.models.filter((m) => !ids.has(m.id))];
  }

  list(): ModelInfo[] {
    return this.descriptors().map(({ id, dimensions, origin, path, languages, sizeBytes }) => ({ id, dimensions, origin, path, languages, sizeBytes }));
  }

  find(modelId: string): ModelDescriptor | undefined {
    return this.descriptors().find((m) => m.id === modelId);
  }

  has(modelId: string): boolean {
    return this.find(modelId) !== undefined;
  }

  get(modelId: string): Promise<Embedder> {
    if (this.disposed) return Promise.reject(new Error('The embedding models were disposed.'));
    let embedder = this.loaded.get(modelId);
    if (!embedder) {
      const descriptor = this.find(modelId);
      if (!descriptor) return Promise.reject(new UnknownModelError(modelId, this.descriptors().map((m) => m.id)));
      const started = performance.now();
      embedder = TransformersEmbedder.load(descriptor, this.batchLimits).then((e) => {
        this.logger.info(`Loaded embedding model ${modelId}`, { origin: descriptor.origin, dtype: descriptor.dtype, ms: Math.round(performance.now() - started) });
        return e;
      });
      // A failed load is not cached: the next call tries again (the user may have fixed the folder).
      const loading = embedder;
      void loading.catch(() => {
        if (this.loaded.get(modelId) === loading) this.loaded.delete(modelId);
      });
      this.loaded.set(modelId, loading);
    }
    return embedder;
  }

  /** Loads a model folder that is not (yet) in either root, to prove it works before accepting it. */
  static async tryFolder(descriptor: ModelDescriptor): Promise<{ dimensions: number }> {
    const embedder = await TransformersEmbedder.load(descriptor);
    try {
      const { vectors } = await embedder.embed(['Hearth checks that this model loads and embeds.'], 'passage');
      const vector = vectors[0];
      if (!vector || vector.length !== descriptor.dimensions || vector.some((x) => !Number.isFinite(x))) {
        throw new Error(`The model produced ${vector?.length ?? 0}-d vectors, expected ${descriptor.dimensions}.`);
      }
      return { dimensions: vector.length };
    } finally {
      await embedder.dispose();
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const all = [...this.loaded.values()];
    this.loaded.clear();
    await Promise.all(all.map((p) => p.then((e) => e.dispose(), () => undefined)));
  }
}
