import { Command, InvalidArgumentError, Option } from 'commander';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Engine } from '../engine/engine.ts';
import { DEFAULT_PORT, PortInUseError, startServer } from '../engine/http/server.ts';
import type { Access, Resource, TokenRecord } from '../engine/identity/identity.types.ts';
import { ApiError } from '../engine/shared/errors.ts';
import { stderrLogger } from '../engine/shared/logger.ts';
import { UnknownSchemaError } from '../engine/storage/database.ts';
import { registerLlmModelCommands } from './commands/llm-model.ts';
import { registerMessagingCommands } from './commands/messaging.ts';
import { registerEmbeddingModelCommands } from './commands/embedding-models.ts';
import { defaultDataDir } from './data-dir.ts';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

interface GlobalOptions {
  dataDir: string;
}

function openEngine(program: Command): Engine {
  const { dataDir } = program.opts<GlobalOptions>();
  return new Engine({ dataDir, logger: stderrLogger });
}

/** Runs a command against a short-lived engine: prints JSON with --json, a readable line otherwise. */
function withEngine<T>(program: Command, json: boolean | undefined, work: (engine: Engine) => T, human: (result: T) => string): void {
  const engine = openEngine(program);
  try {
    const result = work(engine);
    process.stdout.write(json ? JSON.stringify(result) + '\n' : human(result) + '\n');
  } finally {
    void engine.dispose();
  }
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('Expected a port number between 0 and 65535.');
  return port;
}

function parseNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n)) throw new InvalidArgumentError('Expected a number.');
  return n;
}

function parseResources(value: string): Resource[] {
  const items = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const item of items) if (item !== 'knowledge' && item !== 'workflows') throw new InvalidArgumentError(`Unknown resource "${item}"; use knowledge, workflows or both.`);
  return items as Resource[];
}

function describeToken(t: TokenRecord): string {
  const state = t.revokedAt ? 'revoked' : t.expiresAt && Date.parse(t.expiresAt) <= Date.now() ? 'expired' : 'active';
  const tie = t.knowledgeBaseId ? ` base=${t.knowledgeBaseId}` : t.flowId ? ` flow=${t.flowId}` : '';
  return `${t.id}  ${t.name}  ${t.scopes.join(',')}  ${state}${t.expiresAt ? ` expires=${t.expiresAt}` : ''}${tie}`;
}

export function buildProgram(): Command {
  const program = new Command('hearth')
    .description('Hearth: offline knowledge bases and AI workflows behind a loopback API.')
    .addOption(new Option('--data-dir <dir>', 'data folder').env('HEARTH_DATA_DIR').default(defaultDataDir()))
    .showHelpAfterError();

  program
    .command('serve')
    .description('Start the engine, the loopback API and the UI')
    .addOption(new Option('--port <n>', 'port on 127.0.0.1').env('HEARTH_PORT').default(DEFAULT_PORT).argParser(parsePort))
    .option('--json', 'print the URLs as one JSON object')
    .action(async (opts: { port: number; json?: boolean }) => {
      const engine = openEngine(program);
      let server;
      try {
        server = await startServer(engine, { port: opts.port, uiDir: join(projectRoot, 'out', 'renderer') });
      } catch (error) {
        await engine.dispose();
        throw error;
      }
      const uiUrl = `${server.url}/#session=${engine.identity.appSessionSecret}`;
      if (opts.json) process.stdout.write(JSON.stringify({ url: server.url, uiUrl, dataDir: engine.dataDir }) + '\n');
      else process.stdout.write(`Hearth is listening on ${server.url}\nOpen the app: ${uiUrl}\nData folder: ${engine.dataDir}\n`);
      const running = server;
      let stopping = false;
      const stop = (signal: string): void => {
        if (stopping) return;
        stopping = true;
        stderrLogger.info(`${signal} received, stopping`);
        void running
          .dispose()
          .then(() => engine.dispose())
          .then(() => process.exit(0));
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });

  const workspace = program.command('workspace').description('Workspaces');
  workspace
    .command('create')
    .requiredOption('--name <name>', 'workspace name')
    .option('--json')
    .action((opts: { name: string; json?: boolean }) =>
      withEngine(program, opts.json, (e) => e.identity.createWorkspace(opts.name), (w) => `${w.id}  ${w.name}`),
    );
  workspace
    .command('list')
    .option('--json')
    .action((opts: { json?: boolean }) =>
      withEngine(program, opts.json, (e) => ({ workspaces: e.identity.listWorkspaces() }), (r) => r.workspaces.map((w) => `${w.id}  ${w.name}  credits=${w.creditBalance}`).join('\n')),
    );

  const user = program.command('user').description('Users');
  user
    .command('create')
    .option('--workspace <id>', 'workspace id or name (default: the first)')
    .requiredOption('--name <name>', 'user name')
    .option('--json')
    .action((opts: { workspace?: string; name: string; json?: boolean }) =>
      withEngine(program, opts.json, (e) => e.identity.createUser(e.identity.resolveWorkspace(opts.workspace).id, opts.name), (u) => `${u.id}  ${u.name}`),
    );
  user
    .command('list')
    .option('--workspace <id>')
    .option('--json')
    .action((opts: { workspace?: string; json?: boolean }) =>
      withEngine(program, opts.json, (e) => ({ users: e.identity.listUsers(e.identity.resolveWorkspace(opts.workspace).id) }), (r) => r.users.map((u) => `${u.id}  ${u.name}`).join('\n')),
    );

  const token = program.command('token').description('Personal API tokens');
  token
    .command('create')
    .option('--workspace <id>')
    .option('--user <id>', 'user the token acts as (default: the workspace\'s first user)')
    .requiredOption('--name <name>')
    .addOption(new Option('--access <level>').choices(['read', 'write']).default('read'))
    .option('--resources <list>', 'knowledge,workflows', parseResources, ['knowledge', 'workflows'] as Resource[])
    .option('--expires <iso>', 'expiry, ISO 8601')
    .option('--base <kbId>', 'legacy per-base key')
    .option('--flow <flowId>', 'legacy per-flow key')
    .option('--json')
    .action((opts: { workspace?: string; user?: string; name: string; access: Access; resources: Resource[]; expires?: string; base?: string; flow?: string; json?: boolean }) =>
      withEngine(
        program,
        opts.json,
        (e) => {
          const ws = e.identity.resolveWorkspace(opts.workspace);
          const actingUser = e.identity.resolveUser(ws.id, opts.user);
          const { token: record, secret } = e.identity.createToken({
            workspaceId: ws.id,
            userId: actingUser.id,
            name: opts.name,
            access: opts.access,
            resources: opts.resources,
            expiresAt: opts.expires ?? null,
            knowledgeBaseId: opts.base ?? null,
            flowId: opts.flow ?? null,
          });
          return { ...record, token: secret };
        },
        (r) => `${describeToken(r)}\n${r.token}`,
      ),
    );
  token
    .command('list')
    .option('--workspace <id>')
    .option('--json')
    .action((opts: { workspace?: string; json?: boolean }) =>
      withEngine(program, opts.json, (e) => ({ tokens: e.identity.listTokens(e.identity.resolveWorkspace(opts.workspace).id) }), (r) => r.tokens.map(describeToken).join('\n')),
    );
  token
    .command('revoke <id>')
    .option('--workspace <id>')
    .option('--json')
    .action((id: string, opts: { workspace?: string; json?: boolean }) =>
      withEngine(program, opts.json, (e) => e.identity.revokeToken(e.identity.resolveWorkspace(opts.workspace).id, id), (t) => `revoked ${t.id}`),
    );
  token
    .command('reveal <id>')
    .option('--workspace <id>')
    .option('--json')
    .action((id: string, opts: { workspace?: string; json?: boolean }) =>
      withEngine(
        program,
        opts.json,
        (e) => {
          const { token: record, secret } = e.identity.revealToken(e.identity.resolveWorkspace(opts.workspace).id, id);
          return { ...record, token: secret };
        },
        (r) => r.token,
      ),
    );

  const model = program.command('model').description('Models: the language model (set, show, test, clear) and embedding models (list, install, import)');
  registerLlmModelCommands(model, program);
  registerEmbeddingModelCommands(model, program);

  const credits = program.command('credits').description('Workspace credits');
  credits
    .command('set')
    .option('--workspace <id>')
    .requiredOption('--balance <n>', 'new balance', parseNumber)
    .option('--json')
    .action((opts: { workspace?: string; balance: number; json?: boolean }) =>
      withEngine(
        program,
        opts.json,
        (e) => {
          const ws = e.identity.resolveWorkspace(opts.workspace);
          e.credits.setBalance(ws.id, opts.balance);
          return { workspaceId: ws.id, balance: e.credits.balance(ws.id) };
        },
        (r) => `balance ${r.balance}`,
      ),
    );
  credits
    .command('show')
    .option('--workspace <id>')
    .option('--limit <n>', 'ledger rows', parseNumber, 20)
    .option('--json')
    .action((opts: { workspace?: string; limit: number; json?: boolean }) =>
      withEngine(
        program,
        opts.json,
        (e) => {
          const ws = e.identity.resolveWorkspace(opts.workspace);
          return { workspaceId: ws.id, balance: e.credits.balance(ws.id), ledger: e.credits.ledger(ws.id, opts.limit) };
        },
        (r) =>
          [
            `balance ${r.balance}`,
            ...r.ledger.map(
              (l) =>
                `${l.createdAt}  ${l.kind}  ${l.call}  model=${l.model ?? '-'}  tokens in=${l.inputTokens} out=${l.outputTokens} embed=${l.embeddingTokens}  credits=${l.credits}  -> ${l.balanceAfter}`,
            ),
          ].join('\n'),
      ),
    );

  registerMessagingCommands(program, openEngine);
  return program;
}

async function main(): Promise<void> {
  try {
    await buildProgram().parseAsync(process.argv);
  } catch (error) {
    if (error instanceof PortInUseError || error instanceof UnknownSchemaError || error instanceof ApiError) {
      process.stderr.write(`hearth: ${error.message}\n`);
    } else {
      process.stderr.write(`hearth: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
    process.exitCode = 1;
  }
}

await main();
