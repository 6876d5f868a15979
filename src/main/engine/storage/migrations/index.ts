import { identity } from './0001-identity.ts';
import { knowledgeBases } from './0002-knowledge-bases.ts';
import { knowledgeEntries } from './0003-knowledge-entries.ts';
import { llmUnanswered } from './0004-llm-unanswered.ts';
import { flows } from './0005-flows.ts';

export interface Migration {
  /** Position in the history; never reused, never renumbered. */
  id: number;
  name: string;
  sql: string;
}

/**
 * Every schema change, in order. A change only adds: a new file with the next
 * id, never an edit of one that has shipped.
 */
export const MIGRATIONS: readonly Migration[] = [identity, knowledgeBases, knowledgeEntries, llmUnanswered, flows];
