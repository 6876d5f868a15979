import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { type Clock, isoNow } from '../shared/clock.ts';
import { fieldError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import type { Logger } from '../shared/logger.ts';
import type { ModelInfo } from './embedder.types.ts';
import { LocalEmbeddingModels } from './embedding-models.ts';
import { archiveKind, extractArchive, stripArchiveExtension } from './model-archive.ts';
import { InvalidModelFolderError, MANIFEST_FILE, readModelFolder, type ModelManifest } from './model-folder.ts';

export const DEFAULT_HUB_ENDPOINT = 'https://huggingface.co';
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const HUB_REPO = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** Time allowed for the hub to start answering one file; the body itself may take as long as it takes. */
const RESPONSE_TIMEOUT_MS = 30_000;

export interface InstallRequest {
  /** Hugging Face repository, `owner/name`, e.g. `Xenova/multilingual-e5-small`. */
  repo: string;
  /** Folder name, which becomes the model id; default the repository's name. */
  name?: string;
  languages?: string;
  queryPrefix?: string;
  passagePrefix?: string;
}

export interface ImportRequest {
  /** A model folder, or a .zip / .tar / .tar.gz holding one. */
  path: string;
  name?: string;
}

export interface InstallProgress {
  file: string;
  fileBytes: number;
  /** From Content-Length; null when the server does not say. */
  fileTotalBytes: number | null;
  receivedBytes: number;
}

export interface ModelJob {
  id: string;
  kind: 'install';
  repo: string;
  name: string;
  status: 'running' | 'succeeded' | 'failed';
  currentFile: string | null;
  receivedBytes: number;
  fileBytes: number;
  fileTotalBytes: number | null;
  model: ModelInfo | null;
  error: string | null;
  startedAt: string;
  finishedAt: string | null;
}

/** Downloads that fail for a reason outside Hearth (offline, wrong repo, server error); the message says what to do. */
export class ModelDownloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelDownloadError';
  }
}

class NotOnHub extends Error {}

export interface ModelLibraryOptions {
  models: LocalEmbeddingModels;
  logger: Logger;
  clock: Clock;
  /** Default: env HEARTH_HF_ENDPOINT, else https://huggingface.co. */
  hubEndpoint?: string;
}

function toInfo({ id, dimensions, origin, path, languages, sizeBytes }: ModelInfo): ModelInfo {
  return { id, dimensions, origin, path, languages, sizeBytes };
}

function readOptionalJson(path: string): Record<string, unknown> | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Adds models to the user's models folder: from the Hugging Face hub when the machine is online,
 * or from a folder/archive the user already has (air-gapped machines). Either way the files land in a
 * hidden temp folder inside the models folder, the model is loaded and run once, and only then is the
 * folder renamed into place: a failure leaves nothing half-written, and the rename stays on one disk.
 */
export class ModelLibrary {
  private readonly models: LocalEmbeddingModels;
  private readonly logger: Logger;
  private readonly clock: Clock;
  readonly hubEndpoint: string;
  /** Install jobs of this process, for the UI to poll; not persisted (a restart abandons a download). */
  private readonly jobs = new Map<string, ModelJob>();

  constructor(options: ModelLibraryOptions) {
    this.models = options.models;
    this.logger = options.logger;
    this.clock = options.clock;
    this.hubEndpoint = (options.hubEndpoint ?? process.env.HEARTH_HF_ENDPOINT ?? DEFAULT_HUB_ENDPOINT).replace(/\/+$/, '');
  }

  list(): ModelInfo[] {
    return this.models.list();
  }

  /** Starts an install in the background; progress is read with `job(id)`. */
  startInstall(request: InstallRequest): ModelJob {
    this.checkRepo(request.repo);
    const name = this.checkNewName(request.name ?? request.repo.split('/').pop() ?? '', 'name');
    const job: ModelJob = {
      id: newId(),
      kind: 'install',
      repo: request.repo,
      name,
      status: 'running',
      currentFile: null,
      receivedBytes: 0,
      fileBytes: 0,
      fileTotalBytes: null,
      model: null,
      error: null,
      startedAt: isoNow(this.clock),
      finishedAt: null,
    };
    this.jobs.set(job.id, job);
    void this.install({ ...request, name }, (p) => {
      job.currentFile = p.file;
      job.receivedBytes = p.receivedBytes;
      job.fileBytes = p.fileBytes;
      job.fileTotalBytes = p.fileTotalBytes;
    }).then(
      (model) => {
        job.status = 'succeeded';
        job.model = model;
        job.finishedAt = isoNow(this.clock);
      },
      (error: unknown) => {
        job.status = 'failed';
        job.error = error instanceof Error ? error.message : String(error);
        job.finishedAt = isoNow(this.clock);
        this.logger.warn(`Model install ${request.repo} failed`, { error: job.error });
      },
    );
    return { ...job };
  }

  job(id: string): ModelJob | undefined {
    const job = this.jobs.get(id);
    return job ? { ...job } : undefined;
  }

  /** Downloads a sentence-transformers ONNX model from the hub into <dataDir>/models/<name>. */
  async install(request: InstallRequest, onProgress: (p: InstallProgress) => void = () => {}): Promise<ModelInfo> {
    this.checkRepo(request.repo);
    const name = this.checkNewName(request.name ?? request.repo.split('/').pop() ?? '', 'name', true);
    const staging = this.stagingFolder('install');
    const folder = join(staging, 'model');
    try {
      let receivedBytes = 0;
      const fetchFile = async (file: string, optional = false): Promise<boolean> => {
        try {
          await this.download(request.repo, file, join(folder, file), (fileBytes, fileTotalBytes, delta) => {
            receivedBytes += delta;
            onProgress({ file, fileBytes, fileTotalBytes, receivedBytes });
          });
          return true;
        } catch (error) {
          if (error instanceof NotOnHub && optional) return false;
          if (error instanceof NotOnHub) {
            throw new ModelDownloadError(`${request.repo} has no ${file} on ${this.hubEndpoint}. Hearth needs a sentence-transformers model with ONNX weights (onnx/model.onnx), for example Xenova/all-MiniLM-L6-v2 or Xenova/multilingual-e5-small.`);
          }
          throw error;
        }
      };
      for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) await fetchFile(file);
      await fetchFile('sentence_bert_config.json', true);
      await fetchFile('1_Pooling/config.json', true);
      if (!(await fetchFile('onnx/model_quantized.onnx', true)) && !(await fetchFile('onnx/model.onnx', true))) {
        throw new ModelDownloadError(`${request.repo} has no ONNX weights (onnx/model_quantized.onnx or onnx/model.onnx). Look for an ONNX export of it, often published under Xenova/ or onnx-community/.`);
      }
      writeFileSync(join(folder, MANIFEST_FILE), JSON.stringify(this.manifestFor(folder, request), null, 2) + '\n');
      return await this.accept(folder, name);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }

  /** Copies or extracts a model the user already has, checks that it loads and embeds, then adds it. */
  async import(request: ImportRequest): Promise<ModelInfo> {
    const source = resolve(request.path);
    if (!existsSync(source)) throw fieldError('path', `${source} does not exist.`);
    const isFolder = statSync(source).isDirectory();
    const kind = isFolder ? undefined : archiveKind(source);
    if (!isFolder && !kind) throw fieldError('path', 'Expected a model folder or a .zip, .tar or .tar.gz archive.');
    const staging = this.stagingFolder('import');
    try {
      const unpacked = join(staging, 'model');
      if (isFolder) {
        await cp(source, unpacked, { recursive: true });
      } else {
        mkdirSync(unpacked);
        try {
          await extractArchive(source, kind!, unpacked);
        } catch (error) {
          throw fieldError('path', `Could not extract ${basename(source)}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      // Archives usually hold one top folder; the model is that folder.
      let root = unpacked;
      let suggested = isFolder ? basename(source) : stripArchiveExtension(basename(source));
      const top = readdirSync(unpacked, { withFileTypes: true }).filter((e) => !e.name.startsWith('.') && e.name !== '__MACOSX');
      if (!existsSync(join(unpacked, 'config.json')) && top.length === 1 && top[0].isDirectory()) {
        root = join(unpacked, top[0].name);
        if (!isFolder) suggested = top[0].name;
      }
      const name = this.checkNewName(request.name ?? suggested, request.name ? 'name' : 'path', true);
      return await this.accept(root, name);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }

  /** Validates a folder (files, then a real load and one embedding) and moves it into the models folder. */
  private async accept(folder: string, name: string): Promise<ModelInfo> {
    let descriptor;
    try {
      descriptor = readModelFolder(folder, 'user');
    } catch (error) {
      if (error instanceof InvalidModelFolderError) throw fieldError('path', error.message.replaceAll(folder, 'the model folder'));
      throw error;
    }
    try {
      await LocalEmbeddingModels.tryFolder(descriptor);
    } catch (error) {
      throw fieldError('path', `The model did not load and embed a test sentence: ${error instanceof Error ? error.message : String(error)}`);
    }
    const target = join(this.models.userDir, name);
    this.checkNewName(name, 'name', true);
    renameSync(folder, target);
    const info = this.models.list().find((m) => m.id === name && m.origin === 'user');
    if (!info) throw new Error(`Model ${name} was moved to ${target} but is not listed.`);
    this.logger.info(`Added embedding model ${name}`, { path: target, dimensions: info.dimensions });
    return toInfo(info);
  }

  private stagingFolder(kind: string): string {
    mkdirSync(this.models.userDir, { recursive: true });
    // Dot-prefixed, so a crash mid-way leaves a folder that listing ignores. The model goes in a plain-named
    // subfolder (`model`): transformers.js does not resolve model ids that start with a dot.
    return mkdtempSync(join(this.models.userDir, `.${kind}-`));
  }

  private checkRepo(repo: string): void {
    if (!HUB_REPO.test(repo)) throw fieldError('repo', 'Expected a Hugging Face repository as owner/name, e.g. Xenova/multilingual-e5-small.');
  }

  private checkNewName(name: string, field: string, ignoreJobs = false): string {
    if (!MODEL_NAME.test(name)) throw fieldError(field, `"${name}" cannot be a model name: use letters, digits, dot, dash and underscore (at most 100).`);
    if (this.models.has(name) || existsSync(join(this.models.userDir, name))) throw fieldError(field, `A model named ${name} already exists; choose another name.`);
    if (!ignoreJobs && [...this.jobs.values()].some((j) => j.status === 'running' && j.name === name)) throw fieldError(field, `Model ${name} is already being installed.`);
    return name;
  }

  /** Settings the hub folder implies: pooling and length from the sentence-transformers files, e5 prefixes. */
  private manifestFor(folder: string, request: InstallRequest): ModelManifest {
    const sbert = readOptionalJson(join(folder, 'sentence_bert_config.json'));
    const pooling = readOptionalJson(join(folder, '1_Pooling', 'config.json'));
    const isE5 = /(^|[-_/])(multilingual-)?e5([-_]|$)/i.test(request.repo);
    const maxTokens = typeof sbert?.max_seq_length === 'number' ? sbert.max_seq_length : undefined;
    return {
      description: `${request.repo} from the Hugging Face hub`,
      languages: request.languages ?? (/multilingual/i.test(request.repo) ? 'multilingual' : 'unknown'),
      pooling: pooling?.pooling_mode_cls_token === true ? 'cls' : 'mean',
      ...(maxTokens ? { maxTokens } : {}),
      queryPrefix: request.queryPrefix ?? (isE5 ? 'query: ' : ''),
      passagePrefix: request.passagePrefix ?? (isE5 ? 'passage: ' : ''),
      source: `${this.hubEndpoint}/${request.repo}`,
    };
  }

  private async download(repo: string, file: string, target: string, onBytes: (fileBytes: number, total: number | null, delta: number) => void): Promise<void> {
    const url = `${this.hubEndpoint}/${repo}/resolve/main/${file}`;
    const headers: Record<string, string> = {};
    if (process.env.HF_TOKEN) headers.authorization = `Bearer ${process.env.HF_TOKEN}`;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), RESPONSE_TIMEOUT_MS);
    let response: Response;
    try {
      response = await fetch(url, { headers, signal: controller.signal });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
      throw new ModelDownloadError(
        `Cannot reach ${this.hubEndpoint} (${cause}). This machine seems to be offline. Download the model folder on a machine that is online ` +
          `(config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx from https://huggingface.co/${repo}), carry it over, ` +
          `and run \`hearth model import <folder or .zip/.tar.gz>\`.`,
      );
    } finally {
      clearTimeout(timer);
    }
    if (response.status === 404) {
      await response.body?.cancel();
      throw new NotOnHub(file);
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      const hint = response.status === 401 || response.status === 403 ? ' The repository may be private or gated: set HF_TOKEN.' : '';
      throw new ModelDownloadError(`${url} answered ${response.status} ${response.statusText}.${hint}`);
    }
    const length = Number(response.headers.get('content-length'));
    const total = Number.isFinite(length) && length > 0 ? length : null;
    let fileBytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        fileBytes += chunk.length;
        onBytes(fileBytes, total, chunk.length);
        done(null, chunk);
      },
    });
    mkdirSync(dirname(target), { recursive: true });
    try {
      await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), counter, createWriteStream(target));
    } catch (error) {
      throw new ModelDownloadError(`Downloading ${url} failed after ${fileBytes} bytes: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (total !== null && fileBytes !== total) throw new ModelDownloadError(`Downloading ${url} stopped at ${fileBytes} of ${total} bytes.`);
  }
}
