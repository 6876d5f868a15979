import { completionCredits } from '../credits/pricing.ts';
import type { SecretBox } from '../identity/secret-box.ts';
import type { Clock } from '../shared/clock.ts';
import { badRequest, fieldError, type ApiError } from '../shared/errors.ts';
import type { Db } from '../storage/database.ts';
import type { CompletionRequest, CompletionResult, LlmApi, ModelSettingsView } from './llm.types.ts';
import { ModelSettingsRepository, type StoredModelSettings } from './model-settings.repository.ts';
import { LlmError, OpenAiCompatibleProvider } from './openai-compatible.provider.ts';

/** Local models can take a while to load before the first byte; a hung server still fails in two minutes. */
export const DEFAULT_TIMEOUT_MS = 120_000;
export const MIN_TIMEOUT_MS = 100;
export const MAX_TIMEOUT_MS = 600_000;
export const MODEL_NAME_MAX = 200;

export type { ModelSettingsView };

export interface ModelSettingsInput {
  baseUrl: string;
  model: string;
  /** Omitted: keep the stored key while the server's origin stays the same. null or '': remove it. */
  apiKey?: string | null;
  timeoutMs?: number;
  stream?: boolean;
}

export interface ModelTestResult {
  ok: boolean;
  baseUrl: string;
  model: string;
  latencyMs: number;
  reply?: string;
  inputTokens?: number;
  outputTokens?: number;
  usageEstimated?: boolean;
  error?: string;
}

export interface LlmServiceOptions {
  /** Tests shorten the backoff; production keeps the defaults of the provider. */
  retryBaseMs?: number;
  maxRetries?: number;
}

export const CONFIGURE_MODEL_HELP =
  'Point Hearth at an OpenAI-compatible server (Ollama, LM Studio, llama.cpp server, vLLM, OpenAI) on the Settings page, ' +
  'or with `hearth model set --base-url http://127.0.0.1:11434/v1 --model llama3.2` (add --api-key K when the server needs one).';

export function modelNotConfigured(): ApiError {
  return badRequest(`No language model is configured for this workspace. ${CONFIGURE_MODEL_HELP}`, undefined, { reason: 'MODEL_NOT_CONFIGURED' });
}

function normaliseBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw fieldError('baseUrl', 'Expected an http(s) URL such as http://127.0.0.1:11434/v1.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fieldError('baseUrl', 'Expected an http or https URL.');
  if (url.search || url.hash) throw fieldError('baseUrl', 'The base URL takes no query or fragment.');
  return url.toString().replace(/\/+$/, '');
}

function originOf(url: string): string {
  return new URL(url).origin;
}

/**
 * The workspace's model provider (LlmApi): its settings, with the API key sealed by the same
 * SecretBox as token secrets, and completions through the OpenAI-compatible provider.
 * Prices but never spends: callers record the spend with the work it paid for.
 */
export class LlmService implements LlmApi {
  private readonly repo: ModelSettingsRepository;
  private readonly box: SecretBox;
  private readonly clock: Clock;
  private readonly options: LlmServiceOptions;

  constructor(db: Db, box: SecretBox, clock: Clock, options: LlmServiceOptions = {}) {
    this.repo = new ModelSettingsRepository(db);
    this.box = box;
    this.clock = clock;
    this.options = options;
  }

  settings(workspaceId: string): ModelSettingsView {
    return this.view(this.repo.get(workspaceId));
  }

  isConfigured(workspaceId: string): boolean {
    return this.repo.get(workspaceId) !== null;
  }

  /** The configured model's name, or null: lets callers say which model would answer before calling it. */
  modelName(workspaceId: string): string | null {
    return this.repo.get(workspaceId)?.model ?? null;
  }

  configure(workspaceId: string, input: ModelSettingsInput): ModelSettingsView {
    const stored = this.validate(input, this.repo.get(workspaceId));
    this.repo.put(workspaceId, stored);
    return this.view(stored);
  }

  clear(workspaceId: string): ModelSettingsView {
    this.repo.delete(workspaceId);
    return this.view(null);
  }

  async complete(workspaceId: string, request: CompletionRequest): Promise<CompletionResult> {
    const stored = this.repo.get(workspaceId);
    if (!stored) throw modelNotConfigured();
    return this.provider(stored).complete(request);
  }

  creditsFor(inputTokens: number, outputTokens: number): number {
    return completionCredits(inputTokens, outputTokens);
  }

  /**
   * A tiny completion against the stored settings, or against unsaved ones (the settings page's
   * "Test" button before "Save"). Not billed: it checks the connection, it answers nothing.
   */
  async test(workspaceId: string, unsaved?: ModelSettingsInput): Promise<ModelTestResult> {
    const existing = this.repo.get(workspaceId);
    const stored = unsaved ? this.validate(unsaved, existing) : existing;
    if (!stored) throw modelNotConfigured();
    const started = performance.now();
    const base = { baseUrl: stored.baseUrl, model: stored.model };
    try {
      const result = await this.provider(stored).complete({
        messages: [
          { role: 'system', content: 'You are a connection check. Reply with the single word: ready' },
          { role: 'user', content: 'Are you there?' },
        ],
        temperature: 0,
        maxOutputTokens: 16,
      });
      const latencyMs = Math.round(performance.now() - started);
      return { ok: true, ...base, model: result.model, latencyMs, reply: result.text, inputTokens: result.inputTokens, outputTokens: result.outputTokens, usageEstimated: result.usageEstimated };
    } catch (error) {
      if (!(error instanceof LlmError)) throw error;
      return { ok: false, ...base, latencyMs: Math.round(performance.now() - started), error: error.message };
    }
  }

  private provider(stored: StoredModelSettings): OpenAiCompatibleProvider {
    return new OpenAiCompatibleProvider({
      baseUrl: stored.baseUrl,
      model: stored.model,
      apiKey: stored.apiKeyBox ? this.box.open(Buffer.from(stored.apiKeyBox, 'base64')) : null,
      timeoutMs: stored.timeoutMs,
      stream: stored.stream,
      retryBaseMs: this.options.retryBaseMs,
      maxRetries: this.options.maxRetries,
    });
  }

  private validate(input: ModelSettingsInput, existing: StoredModelSettings | null): StoredModelSettings {
    const baseUrl = normaliseBaseUrl(input.baseUrl);
    const model = input.model.trim();
    if (!model || model.length > MODEL_NAME_MAX) throw fieldError('model', `Expected the model's name as the server knows it, 1-${MODEL_NAME_MAX} characters.`);
    const timeoutMs = input.timeoutMs ?? existing?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs < MIN_TIMEOUT_MS || timeoutMs > MAX_TIMEOUT_MS) {
      throw fieldError('timeoutMs', `Expected whole milliseconds between ${MIN_TIMEOUT_MS} and ${MAX_TIMEOUT_MS}.`);
    }
    // A key is kept only for the server it was given for: a new origin never receives the old key.
    let apiKeyBox: string | null;
    if (input.apiKey === undefined) apiKeyBox = existing?.apiKeyBox && originOf(existing.baseUrl) === originOf(baseUrl) ? existing.apiKeyBox : null;
    else if (input.apiKey === null || input.apiKey.trim() === '') apiKeyBox = null;
    else apiKeyBox = this.box.seal(input.apiKey.trim()).toString('base64');
    return { baseUrl, model, apiKeyBox, timeoutMs, stream: input.stream ?? existing?.stream ?? true, updatedAt: this.clock.now().toISOString() };
  }

  private view(stored: StoredModelSettings | null): ModelSettingsView {
    if (!stored) return { configured: false, baseUrl: null, model: null, apiKeySet: false, apiKeyHint: null, timeoutMs: DEFAULT_TIMEOUT_MS, stream: true, updatedAt: null };
    const key = stored.apiKeyBox ? this.box.open(Buffer.from(stored.apiKeyBox, 'base64')) : null;
    return {
      configured: true,
      baseUrl: stored.baseUrl,
      model: stored.model,
      apiKeySet: key !== null,
      apiKeyHint: key && key.length >= 12 ? `…${key.slice(-4)}` : null,
      timeoutMs: stored.timeoutMs,
      stream: stored.stream,
      updatedAt: stored.updatedAt,
    };
  }
}
