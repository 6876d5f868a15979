import { InvalidArgumentError, Option, type Command } from 'commander';
import { Engine } from '../../engine/engine.ts';
import type { ModelSettingsView, ModelTestResult } from '../../engine/llm/llm.service.ts';
import { stderrLogger } from '../../engine/shared/logger.ts';

interface GlobalOptions {
  dataDir: string;
}

function parseTimeout(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('Expected whole milliseconds.');
  return n;
}

/** Runs one command against a short-lived engine on the data folder, then closes it. */
async function withEngine<T>(program: Command, json: boolean | undefined, work: (engine: Engine) => T | Promise<T>, human: (result: T) => string): Promise<T> {
  const { dataDir } = program.opts<GlobalOptions>();
  const engine = new Engine({ dataDir, logger: stderrLogger });
  try {
    const result = await work(engine);
    process.stdout.write(json ? JSON.stringify(result) + '\n' : human(result) + '\n');
    return result;
  } finally {
    await engine.dispose();
  }
}

function describeSettings(s: ModelSettingsView & { workspaceId: string }): string {
  if (!s.configured) return 'No language model configured. Set one with: hearth model set --base-url http://127.0.0.1:11434/v1 --model llama3.2';
  return [
    `base URL  ${s.baseUrl}`,
    `model     ${s.model}`,
    `API key   ${s.apiKeySet ? `set${s.apiKeyHint ? ` (${s.apiKeyHint})` : ''}` : 'none'}`,
    `timeout   ${s.timeoutMs} ms`,
    `stream    ${s.stream ? 'yes' : 'no'}`,
  ].join('\n');
}

/**
 * `hearth model set|show|test|clear`: the workspace's language model (an OpenAI-compatible server).
 * The embeddings side adds its own subcommands (list, install, import) to the same `model` command.
 */
export function registerLlmModelCommands(model: Command, program: Command): void {
  model
    .command('set')
    .description('Point the workspace at an OpenAI-compatible chat-completions server (Ollama, LM Studio, llama.cpp, vLLM, OpenAI)')
    .option('--workspace <id>', 'workspace id or name (default: the first)')
    .requiredOption('--base-url <url>', 'up to the API version, e.g. http://127.0.0.1:11434/v1 for Ollama')
    .requiredOption('--model <name>', "the model's name as the server knows it, e.g. llama3.2")
    .addOption(new Option('--api-key <key>', 'sent as a Bearer token; stored encrypted').env('HEARTH_MODEL_API_KEY'))
    .option('--no-api-key', 'remove a stored API key')
    .option('--timeout-ms <n>', 'longest wait for the next byte from the server', parseTimeout)
    .option('--no-stream', 'ask for one plain JSON reply instead of a stream (for servers that do not stream)')
    .option('--json')
    .action(async (opts: { workspace?: string; baseUrl: string; model: string; apiKey?: string | false; timeoutMs?: number; stream: boolean; json?: boolean }, command: Command) => {
      // Commander sets `stream` to true by default; only pass it when the user said --no-stream or --stream.
      const streamGiven = command.getOptionValueSource('stream') === 'cli';
      await withEngine(
        program,
        opts.json,
        (e) => {
          const ws = e.identity.resolveWorkspace(opts.workspace);
          const view = e.llm.configure(ws.id, {
            baseUrl: opts.baseUrl,
            model: opts.model,
            apiKey: opts.apiKey === false ? null : opts.apiKey,
            timeoutMs: opts.timeoutMs,
            stream: streamGiven ? opts.stream : undefined,
          });
          return { workspaceId: ws.id, ...view };
        },
        (s) => `Saved.\n${describeSettings(s)}\nCheck it with: hearth model test`,
      );
    });

  model
    .command('show')
    .description("The workspace's language model settings (the API key is never printed)")
    .option('--workspace <id>')
    .option('--json')
    .action(async (opts: { workspace?: string; json?: boolean }) => {
      await withEngine(
        program,
        opts.json,
        (e) => {
          const ws = e.identity.resolveWorkspace(opts.workspace);
          return { workspaceId: ws.id, ...e.llm.settings(ws.id) };
        },
        describeSettings,
      );
    });

  model
    .command('test')
    .description('Send a tiny completion to the configured server and report the reply and latency (not billed)')
    .option('--workspace <id>')
    .option('--json')
    .action(async (opts: { workspace?: string; json?: boolean }) => {
      const result = await withEngine<ModelTestResult>(
        program,
        opts.json,
        (e) => e.llm.test(e.identity.resolveWorkspace(opts.workspace).id),
        (r) =>
          r.ok
            ? `OK: ${r.model} at ${r.baseUrl} answered "${(r.reply ?? '').trim().slice(0, 80)}" in ${r.latencyMs} ms (${r.inputTokens} in, ${r.outputTokens} out${r.usageEstimated ? ', estimated' : ''})`
            : `FAILED: ${r.error}`,
      );
      if (!result.ok) process.exitCode = 1;
    });

  model
    .command('clear')
    .description('Forget the language model settings; ask then answers with the best entry')
    .option('--workspace <id>')
    .option('--json')
    .action(async (opts: { workspace?: string; json?: boolean }) => {
      await withEngine(
        program,
        opts.json,
        (e) => {
          const ws = e.identity.resolveWorkspace(opts.workspace);
          return { workspaceId: ws.id, ...e.llm.clear(ws.id) };
        },
        () => 'Cleared. Ask answers with the best matching entry until a model is set.',
      );
    });
}
