import type { Principal } from '../identity/identity.types.ts';

/**
 * What other subsystems (ask, flows) use of the knowledge service. Implemented
 * by the knowledge service; declared here so they can be built side by side.
 */
export interface SearchHit {
  id: string;
  subject: string;
  question: string;
  answer: string;
  /** Cosine similarity of the query to the entry's best-matching text. */
  vectorScore: number;
  /** Fused hybrid score in [0, 1]; `minScore` compares against this. */
  score: number;
}

export interface SearchResult {
  hits: SearchHit[];
  embeddingTokens: number;
}

export interface NewEntryInput {
  subject: string;
  question: string;
  answer: string;
  altQuestions?: string[];
  keywords?: string[];
  validUntil?: string | null;
}

export interface KnowledgeApi {
  /** Same retrieval as POST /bases/{kbId}/search; changes nothing, spends nothing. */
  search(principal: Principal, kbId: string, query: string, topK: number): Promise<SearchResult>;
  /** Records that these entries answered something (hitCount, lastHitAt). */
  recordHits(kbId: string, entryIds: readonly string[]): void;
}

export interface AskOptions {
  query: string;
  topK?: number;
  minScore?: number;
  /** Who asked: logged with unanswered queries. */
  origin: 'api' | 'flow' | 'app';
}

export interface AskReply {
  answer: string | null;
  hits: SearchHit[];
  usage: { model: string; inputTokens: number; outputTokens: number; credits: number };
  note?: string;
}

/** Grounded answers (the ask issue); used by the API route and the flow engine's knowledge action. */
export interface AskApi {
  ask(principal: Principal, kbId: string, options: AskOptions): Promise<AskReply>;
}

export interface KnowledgeWriteApi {
  /** Same path as POST /bases/{kbId}/entries (limits, duplicate checks, credits). */
  addEntry(principal: Principal, kbId: string, input: NewEntryInput): Promise<{ id: string; status: string; conflicts: 0 | 1 }>;
}
