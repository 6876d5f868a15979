import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import type { ModelInfo } from './embedder.types.ts';

/** Optional per-model settings, so that adding a model is dropping a folder in, not writing code. */
export const MANIFEST_FILE = 'hearth-model.json';

const manifestSchema = z.object({
  description: z.string().optional(),
  dimensions: z.number().int().positive().optional(),
  /** Free text shown in `hearth model list`: "en", "multilingual (100 languages)". */
  languages: z.string().optional(),
  pooling: z.enum(['mean', 'cls']).optional(),
  normalize: z.boolean().optional(),
  /** Longer inputs are truncated; sentence-transformers models say so in sentence_bert_config.json. */
  maxTokens: z.number().int().positive().optional(),
  /** e5-style models expect "query: " / "passage: " in front of the text. */
  queryPrefix: z.string().optional(),
  passagePrefix: z.string().optional(),
  /** Pins one ONNX variant when the folder carries several. */
  dtype: z.string().optional(),
  license: z.string().optional(),
  source: z.string().optional(),
});

export type ModelManifest = z.infer<typeof manifestSchema>;

/** Everything needed to load a model folder, resolved once from what is on disk. */
export interface ModelDescriptor extends ModelInfo {
  pooling: 'mean' | 'cls';
  normalize: boolean;
  maxTokens: number;
  queryPrefix: string;
  passagePrefix: string;
  /** transformers.js dtype that selects the ONNX file (`q8` -> model_quantized.onnx). */
  dtype: string;
  /** '' when the ONNX file sits beside config.json, 'onnx' for the hub's usual layout. */
  onnxSubfolder: string;
  onnxFile: string;
  externalData: boolean;
}

/** ONNX file name suffixes transformers.js knows, in the order we prefer them (fast int8 first). */
const ONNX_VARIANTS: ReadonlyArray<{ dtype: string; suffix: string }> = [
  { dtype: 'q8', suffix: '_quantized' },
  { dtype: 'int8', suffix: '_int8' },
  { dtype: 'uint8', suffix: '_uint8' },
  { dtype: 'fp32', suffix: '' },
  { dtype: 'fp16', suffix: '_fp16' },
  { dtype: 'q4', suffix: '_q4' },
  { dtype: 'q4f16', suffix: '_q4f16' },
  { dtype: 'bnb4', suffix: '_bnb4' },
];

const DEFAULT_MAX_TOKENS = 512;

export class InvalidModelFolderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidModelFolderError';
  }
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (error) {
    throw new InvalidModelFolderError(`${basename(path)} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function folderSize(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    total += entry.isDirectory() ? folderSize(full) : statSync(full).size;
  }
  return total;
}

function findOnnx(dir: string, manifestDtype: string | undefined): Pick<ModelDescriptor, 'dtype' | 'onnxSubfolder' | 'onnxFile'> | undefined {
  const variants = manifestDtype ? ONNX_VARIANTS.filter((v) => v.dtype === manifestDtype) : ONNX_VARIANTS;
  for (const subfolder of ['onnx', '']) {
    for (const variant of variants) {
      const file = join(dir, subfolder, `model${variant.suffix}.onnx`);
      if (existsSync(file)) return { dtype: variant.dtype, onnxSubfolder: subfolder, onnxFile: file };
    }
  }
  return undefined;
}

function numberField(config: unknown, ...keys: string[]): number | undefined {
  if (typeof config !== 'object' || config === null) return undefined;
  for (const key of keys) {
    const value = (config as Record<string, unknown>)[key];
    if (typeof value === 'number' && value > 0) return value;
  }
  return undefined;
}

/**
 * Reads a model folder (config.json, tokenizer.json, an ONNX file, maybe hearth-model.json)
 * without loading the weights. Throws InvalidModelFolderError naming what is missing.
 */
export function readModelFolder(dir: string, origin: ModelInfo['origin']): ModelDescriptor {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InvalidModelFolderError(`${dir} is not a folder.`);
  for (const required of ['config.json', 'tokenizer.json']) {
    if (!existsSync(join(dir, required))) throw new InvalidModelFolderError(`${required} is missing from ${dir}; a model folder needs config.json, tokenizer.json and an ONNX file (onnx/model.onnx or onnx/model_quantized.onnx).`);
  }
  const config = readJson(join(dir, 'config.json'));
  let manifest: ModelManifest = {};
  if (existsSync(join(dir, MANIFEST_FILE))) {
    const parsed = manifestSchema.safeParse(readJson(join(dir, MANIFEST_FILE)));
    if (!parsed.success) throw new InvalidModelFolderError(`${MANIFEST_FILE} in ${dir} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    manifest = parsed.data;
  }
  const onnx = findOnnx(dir, manifest.dtype);
  if (!onnx) throw new InvalidModelFolderError(`No ONNX file in ${dir}${manifest.dtype ? ` for dtype ${manifest.dtype}` : ''}; expected onnx/model.onnx, onnx/model_quantized.onnx or similar.`);
  const dimensions = manifest.dimensions ?? numberField(config, 'hidden_size', 'd_model', 'dim');
  if (!dimensions) throw new InvalidModelFolderError(`Cannot tell the vector size of ${dir}: config.json has no hidden_size; add "dimensions" to ${MANIFEST_FILE}.`);
  const positions = numberField(config, 'max_position_embeddings') ?? DEFAULT_MAX_TOKENS;
  return {
    id: basename(dir),
    dimensions,
    origin,
    path: dir,
    languages: manifest.languages ?? 'unknown',
    sizeBytes: folderSize(dir),
    pooling: manifest.pooling ?? 'mean',
    normalize: manifest.normalize ?? true,
    maxTokens: Math.min(manifest.maxTokens ?? DEFAULT_MAX_TOKENS, positions),
    queryPrefix: manifest.queryPrefix ?? '',
    passagePrefix: manifest.passagePrefix ?? '',
    ...onnx,
    externalData: existsSync(`${onnx.onnxFile}_data`),
  };
}

/** Model folders directly inside `root`; folders that are not valid models are reported, not thrown. */
export function scanModelsRoot(root: string, origin: ModelInfo['origin']): { models: ModelDescriptor[]; invalid: Array<{ path: string; reason: string }> } {
  const models: ModelDescriptor[] = [];
  const invalid: Array<{ path: string; reason: string }> = [];
  if (!existsSync(root)) return { models, invalid };
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    // Dot-folders are downloads and imports in progress.
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const dir = join(root, entry.name);
    try {
      models.push(readModelFolder(dir, origin));
    } catch (error) {
      if (!(error instanceof InvalidModelFolderError)) throw error;
      invalid.push({ path: dir, reason: error.message });
    }
  }
  models.sort((a, b) => a.id.localeCompare(b.id));
  return { models, invalid };
}
