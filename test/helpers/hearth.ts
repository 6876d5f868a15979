import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Engine } from '../../src/main/engine/engine.ts';
import { startServer, type RunningServer } from '../../src/main/engine/http/server.ts';
import type { Access, Resource } from '../../src/main/engine/identity/identity.types.ts';
import { silentLogger, type Logger } from '../../src/main/engine/shared/logger.ts';

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'hearth-test-'));
}

export interface TokenOptions {
  access?: Access;
  resources?: Resource[];
  expiresAt?: string | null;
  knowledgeBaseId?: string | null;
  flowId?: string | null;
  workspaceId?: string;
  userId?: string;
}

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

/** A real engine on a temp data folder, served over real HTTP on a free loopback port. */
export class TestHearth {
  readonly dataDir: string;
  engine: Engine;
  server: RunningServer;
  readonly logger: Logger;

  private constructor(dataDir: string, engine: Engine, server: RunningServer, logger: Logger) {
    this.dataDir = dataDir;
    this.engine = engine;
    this.server = server;
    this.logger = logger;
  }

  static async start(options: { dataDir?: string; logger?: Logger } = {}): Promise<TestHearth> {
    const dataDir = options.dataDir ?? tempDataDir();
    const logger = options.logger ?? silentLogger;
    const engine = new Engine({ dataDir, logger });
    const server = await startServer(engine, { port: 0 });
    return new TestHearth(dataDir, engine, server, logger);
  }

  get url(): string {
    return this.server.url;
  }

  get defaultWorkspaceId(): string {
    return this.engine.identity.ensureDefaults().workspace.id;
  }

  /** Creates a personal token (write on both resources unless told) and returns its secret. */
  token(options: TokenOptions = {}): string {
    const workspaceId = options.workspaceId ?? this.defaultWorkspaceId;
    const userId = options.userId ?? this.engine.identity.resolveUser(workspaceId).id;
    return this.engine.identity.createToken({
      workspaceId,
      userId,
      name: 'test',
      access: options.access ?? 'write',
      resources: options.resources ?? ['knowledge', 'workflows'],
      expiresAt: options.expiresAt ?? null,
      knowledgeBaseId: options.knowledgeBaseId ?? null,
      flowId: options.flowId ?? null,
    }).secret;
  }

  get appSession(): string {
    return this.engine.identity.appSessionSecret;
  }

  async request<T = Record<string, unknown>>(method: string, path: string, options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) {
      body = options.rawBody;
      headers['content-type'] ??= 'application/json';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const response = await fetch(this.url + path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON (CSV export, files): keep the text.
    }
    return { status: response.status, body: parsed as T, headers: response.headers, text };
  }

  /** Stops the server and engine, then starts both again on the same data folder. */
  async restart(): Promise<void> {
    await this.server.dispose();
    await this.engine.dispose();
    this.engine = new Engine({ dataDir: this.dataDir, logger: this.logger });
    this.server = await startServer(this.engine, { port: 0 });
  }

  async stop(options: { keepData?: boolean } = {}): Promise<void> {
    await this.server.dispose();
    await this.engine.dispose();
    if (!options.keepData) rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `hearth` CLI in a child process. */
export function runCli(dataDir: string, args: string[], env: Record<string, string> = {}): CliResult {
  const result = spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin', 'hearth.js'), '--data-dir', dataDir, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

export function runCliJson<T = Record<string, unknown>>(dataDir: string, args: string[]): T {
  const result = runCli(dataDir, [...args, '--json']);
  if (result.status !== 0) throw new Error(`hearth ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}
