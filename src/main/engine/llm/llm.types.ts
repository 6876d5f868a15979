/**
 * The model-provider boundary: any OpenAI-compatible chat-completions server.
 * Callers (ask, extraction, the llmChain node) depend on these types only.
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface CompletionRequest {
  messages: ChatMessage[];
  /** Overrides the workspace's configured model name. */
  model?: string;
  temperature?: number;
  maxOutputTokens?: number;
  /** Ask the server for a JSON object reply (response_format json_object). */
  json?: boolean;
  /** Cancels the call (a flow run being stopped, a client going away). */
  signal?: AbortSignal;
}

export interface CompletionResult {
  text: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** True when the server reported no usage and the counts were estimated locally. */
  usageEstimated: boolean;
}

export interface Usage {
  model: string;
  inputTokens: number;
  outputTokens: number;
  credits: number;
}

/** The workspace's model provider, as other subsystems use it (ask, extraction, llmChain). */
export interface LlmApi {
  /**
   * Runs a completion on the workspace's configured OpenAI-compatible server. Throws a 400 ApiError
   * explaining how to configure a model when none is set. Does not spend credits: callers price the
   * result with `creditsFor` and record it through CreditsService.spend.
   */
  complete(workspaceId: string, request: CompletionRequest): Promise<CompletionResult>;
  /** Credits for one completion, from the documented price table. */
  creditsFor(inputTokens: number, outputTokens: number): number;
}

/** What the settings page and `hearth model show` see: never the key itself. */
export interface ModelSettingsView {
  configured: boolean;
  baseUrl: string | null;
  model: string | null;
  apiKeySet: boolean;
  /** The key's last four characters (keys of 12 or more), so a user can tell which key is stored. */
  apiKeyHint: string | null;
  timeoutMs: number;
  stream: boolean;
  updatedAt: string | null;
}
