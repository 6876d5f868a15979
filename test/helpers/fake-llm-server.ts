import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted OpenAI-compatible chat-completions server on 127.0.0.1, speaking the real wire
 * format: a JSON reply, or SSE `data:` chunks ending in `data: [DONE]` with an optional usage chunk
 * (what `stream_options.include_usage` asks for). Each request takes the next step of the script;
 * with none left it answers `DEFAULT_REPLY`.
 */
export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
}

export type Step =
  /** A successful completion; `stream` undefined follows the request's own `stream` flag. */
  | { reply: string; usage?: WireUsage | null; model?: string; stream?: boolean; chunkSize?: number }
  /** An error status with an OpenAI-style error body. */
  | { status: number; message?: string; retryAfter?: string }
  /** Accepts the request and never answers (a stuck server). */
  | { hang: true }
  /** Sends headers and one chunk of a stream, then goes silent. */
  | { hangMidStream: true };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: {
    model: string;
    messages: Array<{ role: string; content: string }>;
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    temperature?: number;
    max_tokens?: number;
    response_format?: { type: string };
  };
  at: number;
}

export const DEFAULT_REPLY = 'ready';

export class FakeLlmServer {
  readonly requests: RecordedRequest[] = [];
  private readonly steps: Step[] = [];
  private readonly server: Server;
  private port = 0;

  private constructor() {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  static async start(): Promise<FakeLlmServer> {
    const fake = new FakeLlmServer();
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.port = (fake.server.address() as AddressInfo).port;
    return fake;
  }

  /** What Hearth's `baseUrl` setting takes, like Ollama's `http://127.0.0.1:11434/v1`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  script(...steps: Step[]): this {
    this.steps.push(...steps);
    return this;
  }

  reset(): void {
    this.steps.length = 0;
    this.requests.length = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += (chunk as Buffer).toString('utf8');
    const body = (raw ? JSON.parse(raw) : {}) as RecordedRequest['body'];
    this.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, at: Date.now() });
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    const step = this.steps.shift() ?? { reply: DEFAULT_REPLY };
    if ('hang' in step) return;
    if ('hangMidStream' in step) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ model: body.model, choices: [{ index: 0, delta: { content: 'par' } }] })}\n\n`);
      return;
    }
    if ('status' in step) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (step.retryAfter !== undefined) headers['retry-after'] = step.retryAfter;
      res.writeHead(step.status, headers).end(JSON.stringify({ error: { message: step.message ?? `scripted ${step.status}`, type: 'fake' } }));
      return;
    }
    const model = step.model ?? body.model;
    const stream = step.stream ?? body.stream === true;
    if (!stream) {
      const usage = step.usage === undefined ? null : step.usage;
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: step.reply }, finish_reason: 'stop' }],
          ...(usage ? { usage } : {}),
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const size = step.chunkSize ?? 4;
    const send = (payload: unknown): boolean => res.write(`data: ${JSON.stringify(payload)}\n\n`);
    send({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', model, choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] });
    for (let i = 0; i < step.reply.length; i += size) {
      send({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', model, choices: [{ index: 0, delta: { content: step.reply.slice(i, i + size) } }] });
    }
    send({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    // include_usage: one last chunk with empty choices and the usage (when the script has some).
    if (step.usage && body.stream_options?.include_usage) send({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', model, choices: [], usage: step.usage });
    res.end('data: [DONE]\n\n');
  }
}
