/**
 * The embedding runtime's public face. Everything else in the engine (index,
 * search, near-duplicate checks) depends on these types only.
 */
export type EmbedPurpose = 'query' | 'passage';

export interface EmbeddingResult {
  /** One L2-normalised vector per input text, in input order. */
  vectors: Float32Array[];
  /** Tokens the model read (billed as embedding tokens). */
  tokens: number;
}

export interface Embedder {
  /** Stable id recorded on each base as `embeddingModel`. */
  readonly modelId: string;
  readonly dimensions: number;
  embed(texts: readonly string[], purpose: EmbedPurpose): Promise<EmbeddingResult>;
  dispose(): Promise<void>;
}

export interface ModelInfo {
  id: string;
  dimensions: number;
  /** Where the weights were found: bundled with the app, or the user's models folder. */
  origin: 'bundled' | 'user';
  path: string;
  languages: string;
  sizeBytes: number;
}

/** Finds, loads and caches embedders; the default one works right after install. */
export interface EmbeddingModels {
  readonly defaultModelId: string;
  list(): ModelInfo[];
  get(modelId: string): Promise<Embedder>;
  dispose(): Promise<void>;
}
