import type { SearchHit } from '../knowledge/knowledge.api.ts';
import type { ChatMessage } from '../llm/llm.types.ts';

/** What the model replies when the entries do not hold the answer; never shown to callers as is. */
export const NO_ANSWER_MARKER = 'NOT_IN_KNOWLEDGE_BASE';
/** The answer callers get in its place. */
export const DOES_NOT_KNOW = 'I do not know: the knowledge base has no entry that answers this question.';

export const ASK_SYSTEM_PROMPT = [
  'You answer a question using only the knowledge base entries given in the user message, numbered [1], [2], and so on.',
  'Rules:',
  '- Use only what those entries state. Never add facts from anywhere else, and never guess.',
  '- Cite each entry you use by its number in square brackets, for example [2], right after the sentence that uses it.',
  `- If the entries do not answer the question, reply with exactly ${NO_ANSWER_MARKER} and nothing else.`,
  '- Answer briefly, in the language of the question.',
].join('\n');

/** Only the hits go in: no other entry, no base description, nothing the model could answer from besides them. */
export function buildAskMessages(query: string, hits: readonly SearchHit[]): ChatMessage[] {
  const entries = hits.map((h, i) => `[${i + 1}] Subject: ${h.subject}\nQuestion: ${h.question}\nAnswer: ${h.answer}`).join('\n\n');
  return [
    { role: 'system', content: ASK_SYSTEM_PROMPT },
    { role: 'user', content: `Entries:\n\n${entries}\n\nQuestion: ${query}` },
  ];
}

export function saysItDoesNotKnow(answer: string): boolean {
  return answer.includes(NO_ANSWER_MARKER) || answer.trim() === '';
}

/** The hits the answer cites as [n] or [n, m]; numbers outside the list are ignored. */
export function citedHits(answer: string, hits: readonly SearchHit[]): SearchHit[] {
  const cited = new Set<number>();
  for (const match of answer.matchAll(/\[(\d+(?:\s*,\s*\d+)*)\]/g)) {
    for (const n of match[1].split(',')) {
      const index = Number(n.trim()) - 1;
      if (index >= 0 && index < hits.length) cited.add(index);
    }
  }
  return [...cited].sort((a, b) => a - b).map((i) => hits[i]);
}
