import type { Command } from 'commander';
import { Engine } from '../../engine/engine.ts';
import type { ModelInfo } from '../../engine/embeddings/embedder.types.ts';
import { ModelDownloadError, type InstallProgress } from '../../engine/embeddings/model-library.service.ts';
import { stderrLogger } from '../../engine/shared/logger.ts';

interface GlobalOptions {
  dataDir: string;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

function describe(m: ModelInfo, defaultId: string): string {
  return `${m.id}${m.id === defaultId ? ' (default)' : ''}  ${m.dimensions}-d  ${m.languages}  ${m.origin}  ${megabytes(m.sizeBytes)}  ${m.path}`;
}

/** Runs `work` on a short-lived engine; download failures print their advice, not a stack. */
async function withEngine(program: Command, work: (engine: Engine) => Promise<void> | void): Promise<void> {
  const engine = new Engine({ dataDir: program.opts<GlobalOptions>().dataDir, logger: stderrLogger });
  try {
    await work(engine);
  } catch (error) {
    if (!(error instanceof ModelDownloadError)) throw error;
    process.stderr.write(`hearth: ${error.message}\n`);
    process.exitCode = 1;
  } finally {
    await engine.dispose();
  }
}

/** Progress on stderr, at most a few lines a second, so stdout stays clean for --json. */
function progressPrinter(): (p: InstallProgress) => void {
  let lastFile = '';
  let lastPrint = 0;
  return (p) => {
    const now = Date.now();
    const done = p.fileTotalBytes !== null && p.fileBytes === p.fileTotalBytes;
    if (p.file === lastFile && !done && now - lastPrint < 500) return;
    lastFile = p.file;
    lastPrint = now;
    const share = p.fileTotalBytes ? ` of ${megabytes(p.fileTotalBytes)} (${Math.floor((100 * p.fileBytes) / p.fileTotalBytes)}%)` : '';
    process.stderr.write(`  ${p.file}: ${megabytes(p.fileBytes)}${share}  [${megabytes(p.receivedBytes)} in all]\n`);
  };
}

/** `hearth model list|install|import`: the embedding models. The chat model's subcommands live beside these. */
export function registerEmbeddingModelCommands(model: Command, program: Command): void {
  model
    .command('list')
    .description('Embedding models: bundled with the app, then the ones in <data-dir>/models')
    .option('--json')
    .action((opts: { json?: boolean }) =>
      withEngine(program, (engine) => {
        const models = engine.embeddingLibrary.list();
        const defaultModelId = engine.embeddings.defaultModelId;
        process.stdout.write(opts.json ? JSON.stringify({ defaultModelId, models }) + '\n' : models.map((m) => describe(m, defaultModelId)).join('\n') + '\n');
      }),
    );

  model
    .command('install <repo>')
    .description('Download a sentence-transformers ONNX model from the Hugging Face hub (needs internet; HEARTH_HF_ENDPOINT overrides the hub URL)')
    .option('--name <name>', 'model id / folder name (default: the repository name)')
    .option('--languages <text>', 'languages shown in `model list`, e.g. "multilingual"')
    .option('--query-prefix <text>', 'text put before each query (e5 models: "query: ", the default for e5 repos)')
    .option('--passage-prefix <text>', 'text put before each indexed text (e5: "passage: ")')
    .option('--json')
    .action((repo: string, opts: { name?: string; languages?: string; queryPrefix?: string; passagePrefix?: string; json?: boolean }) =>
      withEngine(program, async (engine) => {
        process.stderr.write(`Downloading ${repo} from ${engine.embeddingLibrary.hubEndpoint}\n`);
        const info = await engine.embeddingLibrary.install({ repo, name: opts.name, languages: opts.languages, queryPrefix: opts.queryPrefix, passagePrefix: opts.passagePrefix }, progressPrinter());
        process.stdout.write(opts.json ? JSON.stringify(info) + '\n' : `Installed ${describe(info, engine.embeddings.defaultModelId)}\n`);
      }),
    );

  model
    .command('import <path>')
    .description('Add a model folder or a .zip/.tar/.tar.gz archive of one (for machines without internet)')
    .option('--name <name>', 'model id / folder name (default: the folder or archive name)')
    .option('--json')
    .action((path: string, opts: { name?: string; json?: boolean }) =>
      withEngine(program, async (engine) => {
        const info = await engine.embeddingLibrary.import({ path, name: opts.name });
        process.stdout.write(opts.json ? JSON.stringify(info) + '\n' : `Imported ${describe(info, engine.embeddings.defaultModelId)}\n`);
      }),
    );
}
