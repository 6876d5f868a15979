/**
 * What each kind of work costs in credits. One small table shared by every
 * spending call (embeddings, model answers, extraction, web search), so the
 * app and the API charge the same rate. The contract does not show prices;
 * these are Hearth's.
 */

/** Per token the embedding model reads (add entry, import, text edits, the question of an ask). */
export const CREDITS_PER_EMBEDDING_TOKEN = 0.00002;

/** Per 1 000 prompt tokens sent to a language model. */
export const CREDITS_PER_1K_INPUT_TOKENS = 0.01;

/** Per 1 000 tokens a language model writes. */
export const CREDITS_PER_1K_OUTPUT_TOKENS = 0.03;

/** Per web search an extraction runs. */
export const CREDITS_PER_WEB_SEARCH = 0.5;

export function embeddingCredits(tokens: number): number {
  return tokens * CREDITS_PER_EMBEDDING_TOKEN;
}

/** A model answer (ask, llmChain): prompt and written tokens at their own rates. */
export function completionCredits(inputTokens: number, outputTokens: number): number {
  return (inputTokens * CREDITS_PER_1K_INPUT_TOKENS + outputTokens * CREDITS_PER_1K_OUTPUT_TOKENS) / 1000;
}

/**
 * Extraction (submissions) counts its input tokens plus one third of its output tokens,
 * all at the input rate: extraction reads a lot and writes pairs that mostly quote it.
 */
export function submissionCredits(inputTokens: number, outputTokens: number, webSearches = 0): number {
  return ((inputTokens + outputTokens / 3) * CREDITS_PER_1K_INPUT_TOKENS) / 1000 + webSearches * CREDITS_PER_WEB_SEARCH;
}
