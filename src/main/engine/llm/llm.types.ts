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
