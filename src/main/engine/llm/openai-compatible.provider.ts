import { ApiError } from '../shared/errors.ts';
import type { ChatMessage, CompletionRequest, CompletionResult } from './llm.types.ts';
import { estimateInputTokens, estimateTokens } from './token-estimate.ts';

export interface ProviderConfig {
  /** Up to and including the API version, e.g. `http://127.0.0.1:11434/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  apiKey: string | null;
  model: string;
  /** Longest wait for the server's next byte (headers, or the next streamed chunk). */
  timeoutMs: number;
  /** Ask for an SSE stream: a slow local model then only times out when it stops writing, not when it writes a lot. */
  stream: boolean;
  /** Retries after a 429 or 5xx; the first attempt is not counted. */
  maxRetries?: number;
  /** First backoff when the server gives no Retry-After; doubles each retry. */
  retryBaseMs?: number;
}

export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_RETRY_BASE_MS = 500;
/** A Retry-After longer than this is not waited out: the call fails and says when to try again. */
export const MAX_RETRY_AFTER_MS = 60_000;

export type LlmFailure = 'timeout' | 'http' | 'network' | 'bad-reply' | 'aborted';

/**
 * A model server failed or could not be reached. Reported as the contract's 500 ("failure inside the
 * service", retry once) with the server's own words, since the fix is usually on the caller's side
 * (server not running, wrong model name, wrong key).
 */
export class LlmError extends ApiError {
  readonly failure: LlmFailure;
  readonly upstreamStatus: number | null;

  constructor(failure: LlmFailure, message: string, upstreamStatus: number | null = null) {
    super(500, 'INTERNAL', message, { reason: `llm-${failure}`, ...(upstreamStatus !== null ? { upstreamStatus } : {}) });
    this.name = 'LlmError';
    this.failure = failure;
    this.upstreamStatus = upstreamStatus;
  }
}

interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
}

interface WireReply {
  model?: string;
  choices?: Array<{ message?: { content?: string | null }; delta?: { content?: string | null }; text?: string }>;
  usage?: WireUsage | null;
  error?: { message?: string } | string;
}

interface Accumulated {
  text: string;
  model: string | null;
  usage: WireUsage | null;
}

function isRetryable(status: number): boolean {
  return status === 429 || status >= 500;
}

/** Retry-After is either delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new LlmError('aborted', 'The model call was cancelled.'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new LlmError('aborted', 'The model call was cancelled.'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function errorText(body: string): string {
  try {
    const parsed = JSON.parse(body) as WireReply;
    const err = parsed.error;
    if (typeof err === 'string') return err;
    if (err?.message) return err.message;
  } catch {
    // Not JSON: the raw text says it.
  }
  return body.trim().slice(0, 300) || '(empty body)';
}

/**
 * Aborts when no byte has arrived for `timeoutMs`. Reset on every chunk, so a long streamed answer
 * is fine while a server that hangs (before headers or mid-stream) is not.
 */
class IdleTimer {
  readonly controller = new AbortController();
  timedOut = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    this.timeoutMs = timeoutMs;
    this.touch();
  }

  touch(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, this.timeoutMs);
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

/**
 * One OpenAI-compatible chat-completions endpoint: Ollama (`/v1`), LM Studio, llama.cpp's server, vLLM,
 * OpenAI. Speaks plain JSON and SSE replies (whichever the server sends), retries 429 and 5xx with
 * exponential backoff honouring Retry-After, and estimates token usage when the server reports none.
 */
export class OpenAiCompatibleProvider {
  private readonly config: ProviderConfig;

  constructor(config: ProviderConfig) {
    this.config = config;
  }

  get endpoint(): string {
    return this.config.baseUrl.replace(/\/+$/, '') + '/chat/completions';
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const maxRetries = this.config.maxRetries ?? DEFAULT_MAX_RETRIES;
    const retryBaseMs = this.config.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(request);
      if ('result' in outcome) return outcome.result;
      const { status, retryAfterMs, message } = outcome;
      const explained = `The model server at ${this.endpoint} answered ${status}: ${message}`;
      if (!isRetryable(status) || attempt >= maxRetries) {
        const hint = status === 404 && !/\/v\d+\/?$/.test(this.config.baseUrl) ? ' (OpenAI-compatible servers usually serve under /v1: try a base URL ending in /v1)' : '';
        const tries = isRetryable(status) ? ` after ${attempt + 1} attempts` : '';
        throw new LlmError('http', explained + hint + tries, status);
      }
      if (retryAfterMs !== null && retryAfterMs > MAX_RETRY_AFTER_MS) {
        throw new LlmError('http', `${explained}; it asks to wait ${Math.ceil(retryAfterMs / 1000)} s before trying again.`, status);
      }
      await sleep(retryAfterMs ?? retryBaseMs * 2 ** attempt, request.signal);
    }
  }

  private body(request: CompletionRequest): Record<string, unknown> {
    return {
      model: request.model ?? this.config.model,
      messages: request.messages,
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.maxOutputTokens !== undefined ? { max_tokens: request.maxOutputTokens } : {}),
      ...(request.json ? { response_format: { type: 'json_object' } } : {}),
      ...(this.config.stream ? { stream: true, stream_options: { include_usage: true } } : { stream: false }),
    };
  }

  private async attempt(request: CompletionRequest): Promise<{ result: CompletionResult } | { status: number; retryAfterMs: number | null; message: string }> {
    const idle = new IdleTimer(this.config.timeoutMs);
    const signal = request.signal ? AbortSignal.any([idle.controller.signal, request.signal]) : idle.controller.signal;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: this.config.stream ? 'text/event-stream, application/json' : 'application/json' };
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;
    try {
      const response = await fetch(this.endpoint, { method: 'POST', headers, body: JSON.stringify(this.body(request)), signal });
      idle.touch();
      if (!response.ok) {
        const text = await response.text();
        return { status: response.status, retryAfterMs: parseRetryAfter(response.headers.get('retry-after')), message: errorText(text) };
      }
      const isStream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
      const acc = isStream ? await this.readStream(response, idle) : this.readPlain(await response.text());
      return { result: this.finish(request.messages, acc, request.model) };
    } catch (error) {
      if (error instanceof LlmError) throw error;
      if (idle.timedOut) throw new LlmError('timeout', `The model server at ${this.endpoint} sent nothing for ${this.config.timeoutMs} ms; gave up. Raise the timeout with \`hearth model set --timeout-ms N\` if the model is slow to start.`);
      if (request.signal?.aborted) throw new LlmError('aborted', 'The model call was cancelled.');
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new LlmError('network', `Could not reach the model server at ${this.endpoint} (${why}). Is it running?`);
    } finally {
      idle.stop();
    }
  }

  private readPlain(text: string): Accumulated {
    let parsed: WireReply;
    try {
      parsed = JSON.parse(text) as WireReply;
    } catch {
      throw new LlmError('bad-reply', `The model server at ${this.endpoint} sent a reply that is not JSON: ${text.slice(0, 200)}`);
    }
    if (parsed.error) throw new LlmError('bad-reply', `The model server at ${this.endpoint} reported: ${errorText(text)}`);
    const choice = parsed.choices?.[0];
    const content = choice?.message?.content ?? choice?.text;
    if (typeof content !== 'string') throw new LlmError('bad-reply', `The model server at ${this.endpoint} sent no choices[0].message.content.`);
    return { text: content, model: parsed.model ?? null, usage: parsed.usage ?? null };
  }

  /** Server-sent events: `data: {chunk}` lines, blank-line separated, ending with `data: [DONE]` (or just the end). */
  private async readStream(response: Response, idle: IdleTimer): Promise<Accumulated> {
    const acc: Accumulated = { text: '', model: null, usage: null };
    if (!response.body) return acc;
    const decoder = new TextDecoder();
    let buffer = '';
    let done = false;
    const handleLine = (line: string): void => {
      if (!line.startsWith('data:')) return; // comments (`: keep-alive`), event:, id:
      const data = line.slice(5).trim();
      if (data === '[DONE]') {
        done = true;
        return;
      }
      if (!data) return;
      let chunk: WireReply;
      try {
        chunk = JSON.parse(data) as WireReply;
      } catch {
        throw new LlmError('bad-reply', `The model server at ${this.endpoint} streamed a chunk that is not JSON: ${data.slice(0, 200)}`);
      }
      if (chunk.error) throw new LlmError('bad-reply', `The model server at ${this.endpoint} reported mid-stream: ${errorText(data)}`);
      acc.model ??= chunk.model ?? null;
      const piece = chunk.choices?.[0]?.delta?.content ?? chunk.choices?.[0]?.text;
      if (typeof piece === 'string') acc.text += piece;
      if (chunk.usage) acc.usage = chunk.usage;
    };
    for await (const bytes of response.body as AsyncIterable<Uint8Array>) {
      idle.touch();
      buffer += decoder.decode(bytes, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        handleLine(buffer.slice(0, newline).replace(/\r$/, ''));
        buffer = buffer.slice(newline + 1);
      }
      if (done) break;
    }
    if (!done) handleLine((buffer + decoder.decode()).trim());
    return acc;
  }

  private finish(messages: readonly ChatMessage[], acc: Accumulated, requestedModel: string | undefined): CompletionResult {
    const model = acc.model ?? requestedModel ?? this.config.model;
    const input = acc.usage?.prompt_tokens;
    const output = acc.usage?.completion_tokens;
    if (typeof input === 'number' && typeof output === 'number') {
      return { text: acc.text, model, inputTokens: input, outputTokens: output, usageEstimated: false };
    }
    return { text: acc.text, model, inputTokens: estimateInputTokens(messages), outputTokens: estimateTokens(acc.text), usageEstimated: true };
  }
}
