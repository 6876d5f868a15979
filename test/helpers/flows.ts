import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { EdgeInput, Execution, FlowEdge, FlowNode, FlowSummary, NodeInput } from '../../src/main/engine/flows/flows.types.ts';
import { PROJECT_ROOT, type TestHearth } from './hearth.ts';

export const F = '/api/ai/simple-flow';
export const OTHER_UUID = '0b9f4a52-6a43-4d2e-9c1f-2f3a4b5c6d7e';

export type FlowBody = FlowSummary & { nodes: FlowNode[]; edges: FlowEdge[] };

export interface ErrorBody {
  success: false;
  error: string;
  code: string;
  details?: { fieldErrors?: Record<string, string[]>; balance?: number };
}

/** A flow fixture from test/api/fixtures/flows/<name>.json. */
export function fixture(name: string): { name: string; nodes: NodeInput[]; edges: EdgeInput[] } {
  return JSON.parse(readFileSync(join(PROJECT_ROOT, 'test', 'api', 'fixtures', 'flows', `${name}.json`), 'utf8')) as { name: string; nodes: NodeInput[]; edges: EdgeInput[] };
}

export async function createFlow(hearth: TestHearth, token: string, body: { name: string; active?: boolean; nodes?: NodeInput[]; edges?: EdgeInput[] }): Promise<FlowBody> {
  const res = await hearth.request<FlowBody>('POST', `${F}/flows`, { token, body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** Polls the execution (as a client would, but fast) until it is no longer running. */
export async function waitForExecution(hearth: TestHearth, token: string, poll: string, timeoutMs = 10_000): Promise<Execution> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await hearth.request<Execution>('GET', poll, { token });
    assert.equal(res.status, 200, res.text);
    if (res.body.status !== 'running') return res.body;
    if (Date.now() > deadline) throw new Error(`Execution still running after ${timeoutMs} ms: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Executes a flow and waits for the run to end. */
export async function runFlow(hearth: TestHearth, token: string, flowId: string, timeoutMs?: number): Promise<Execution> {
  const res = await hearth.request<{ executionId: string; poll: string }>('POST', `${F}/flows/${flowId}/execute`, { token });
  assert.equal(res.status, 202, res.text);
  return waitForExecution(hearth, token, res.body.poll, timeoutMs);
}

export function entryOf(execution: Execution, nodeId: string): Execution['log'][number] {
  const entry = execution.log.find((e) => e.nodeId === nodeId);
  assert.ok(entry, `no log entry for ${nodeId} in ${JSON.stringify(execution.log.map((e) => e.nodeId))}`);
  return entry;
}

export interface RecordedHttp {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A real HTTP server on 127.0.0.1 standing in for an outside service (an API, a webhook). */
export class LocalServer {
  readonly requests: RecordedHttp[] = [];
  url = '';
  private readonly server;

  private constructor(handler: (req: RecordedHttp, res: ServerResponse) => void) {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
        this.requests.push(recorded);
        handler(recorded, res);
      });
    });
  }

  static async start(handler: (req: RecordedHttp, res: ServerResponse) => void): Promise<LocalServer> {
    const local = new LocalServer(handler);
    await new Promise<void>((resolve) => local.server.listen(0, '127.0.0.1', resolve));
    local.url = `http://127.0.0.1:${(local.server.address() as AddressInfo).port}`;
    return local;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export interface FeedEvent {
  type: string;
  flowId: string | null;
  at: string;
  [key: string]: unknown;
}

/** Subscribes to a server-sent change feed the way the canvas does (fetch + stream, with the token header). */
export async function openFeed(url: string, token: string): Promise<{ status: number; next(type: string, timeoutMs?: number): Promise<FeedEvent>; close(): void }> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: abort.signal });
  const events: FeedEvent[] = [];
  const waiters: Array<() => void> = [];
  if (res.ok && res.body) {
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    void (async () => {
      let buffer = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const data = block.split('\n').find((l) => l.startsWith('data: '));
            if (data) events.push(JSON.parse(data.slice(6)) as FeedEvent);
            for (const w of waiters.splice(0)) w();
          }
        }
      } catch {
        // aborted by close()
      }
    })();
  }
  return {
    status: res.status,
    async next(type, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const index = events.findIndex((e) => e.type === type);
        if (index >= 0) return events.splice(0, index + 1)[index];
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`No ${type} event within ${timeoutMs} ms; saw ${JSON.stringify(events.map((e) => e.type))}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, left);
        });
      }
    },
    close: () => abort.abort(),
  };
}
