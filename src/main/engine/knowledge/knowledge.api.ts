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
