import type { ChatMessage } from './llm.types.ts';

/**
 * Used only when a server reports no `usage`: about four characters per token for
 * English-like text (the usual rule of thumb for BPE vocabularies), never less than
 * one token per word-ish run of non-Latin script. Results carry `usageEstimated: true`.
 */
export function estimateTokens(text: string): number {
  if (!text) return 0;
  const byChars = Math.ceil(text.length / 4);
  const words = text.match(/\S+/g)?.length ?? 0;
  return Math.max(byChars, words);
}

/** Chat formatting adds a few tokens per message (role markers) and a few to prime the reply. */
export const TOKENS_PER_MESSAGE = 4;
export const TOKENS_TO_PRIME_REPLY = 3;

export function estimateInputTokens(messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + estimateTokens(m.content) + TOKENS_PER_MESSAGE, TOKENS_TO_PRIME_REPLY);
}
