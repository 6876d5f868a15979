import type { CreditsService } from '../credits/credits.service.ts';
import { roundCredits } from '../credits/credits.service.ts';
import { embeddingCredits } from '../credits/pricing.ts';
import type { Principal } from '../identity/identity.types.ts';
import type { BasesService } from '../knowledge/bases.service.ts';
import type { AskApi, AskOptions, AskReply, KnowledgeApi, SearchHit } from '../knowledge/knowledge.api.ts';
import type { LlmService } from '../llm/llm.service.ts';
import { CONFIGURE_MODEL_HELP } from '../llm/llm.service.ts';
import type { Clock } from '../shared/clock.ts';
import { fieldError } from '../shared/errors.ts';
import type { Db } from '../storage/database.ts';
import { buildAskMessages, citedHits, DOES_NOT_KNOW, saysItDoesNotKnow } from './ask.prompt.ts';
import { UnansweredRepository, type UnansweredItem } from './unanswered.repository.ts';

/** Contract 4.1 and 8. */
export const ASK_LIMITS = {
  topKMin: 1,
  topKMax: 20,
  topKDefault: 6,
  minScoreDefault: 0.35,
  /** Not in the contract: a question, not a document. */
  queryMax: 2000,
  unansweredList: 200,
} as const;

/** "One small model answer" (contract 8): short and close to the entries' wording. */
export const ASK_MAX_OUTPUT_TOKENS = 512;
export const ASK_TEMPERATURE = 0.1;

/** `usage.model` when no model ran. */
export const MODEL_LABEL_BEST_ENTRY = 'none (best entry)';
export const MODEL_LABEL_NO_MATCH = 'none (no match)';

export interface AskDependencies {
  db: Db;
  clock: Clock;
  bases: BasesService;
  credits: CreditsService;
  llm: LlmService;
  /** Resolved at call time: the knowledge service is built beside this one. */
  knowledge: () => KnowledgeApi;
}

/**
 * Grounded answers (POST /bases/{kbId}/ask) and the unanswered log. Order of work: the base must
 * exist (404), the balance must be above 0 (402, nothing done), then the same retrieval as search,
 * then the model, and only then one transaction records the spend, the hits and any miss.
 */
export class AskService implements AskApi {
  private readonly deps: AskDependencies;
  private readonly unanswered: UnansweredRepository;

  constructor(deps: AskDependencies) {
    this.deps = deps;
    this.unanswered = new UnansweredRepository(deps.db);
  }

  async ask(principal: Principal, kbId: string, options: AskOptions): Promise<AskReply> {
    const { query, topK, minScore } = validateAsk(options);
    const { bases, credits, llm, knowledge, db, clock } = this.deps;
    bases.require(principal, kbId);
    credits.assertCanSpend(principal.workspaceId);

    const search = await knowledge().search(principal, kbId, query, topK);
    const embedding = { tokens: search.embeddingTokens, credits: embeddingCredits(search.embeddingTokens) };
    const hits = search.hits.filter((h) => h.score >= minScore).sort((a, b) => b.score - a.score);
    const now = (): string => clock.now().toISOString();

    if (hits.length === 0) {
      const spent = roundCredits(embedding.credits);
      db.transaction(() => {
        this.unanswered.record(kbId, query, now(), options.origin);
        credits.spend(principal.workspaceId, { call: 'ask', model: null, embeddingTokens: embedding.tokens, credits: spent });
      })();
      return {
        answer: null,
        hits: [],
        usage: { model: MODEL_LABEL_NO_MATCH, inputTokens: 0, outputTokens: 0, credits: spent },
        note: `No entry scored at least ${minScore}, so nothing was sent to a model. The question was added to this base's unanswered list.`,
      };
    }

    if (!llm.isConfigured(principal.workspaceId)) {
      // Every answer is complete and self-contained (contract 2.3), so the best entry's answer stands on its own.
      const best = hits[0];
      const spent = roundCredits(embedding.credits);
      db.transaction(() => {
        credits.spend(principal.workspaceId, { call: 'ask', model: null, embeddingTokens: embedding.tokens, credits: spent });
        knowledge().recordHits(kbId, [best.id]);
      })();
      return {
        answer: best.answer,
        hits,
        usage: { model: MODEL_LABEL_BEST_ENTRY, inputTokens: 0, outputTokens: 0, credits: spent },
        note: `No language model is configured, so this is the best entry's own answer. ${CONFIGURE_MODEL_HELP}`,
      };
    }

    const result = await llm.complete(principal.workspaceId, {
      messages: buildAskMessages(query, hits),
      temperature: ASK_TEMPERATURE,
      maxOutputTokens: ASK_MAX_OUTPUT_TOKENS,
    });
    const spent = roundCredits(llm.creditsFor(result.inputTokens, result.outputTokens) + embedding.credits);
    const unknown = saysItDoesNotKnow(result.text);
    const used: SearchHit[] = unknown ? [] : citedOrBest(result.text, hits);
    db.transaction(() => {
      credits.spend(principal.workspaceId, {
        call: 'ask',
        model: result.model,
        inputTokens: result.inputTokens,
        outputTokens: result.outputTokens,
        embeddingTokens: embedding.tokens,
        credits: spent,
      });
      if (used.length) knowledge().recordHits(kbId, used.map((h) => h.id));
      // The entries were close but did not hold the answer: the base's owner wants to see this question too.
      if (unknown) this.unanswered.record(kbId, query, now(), options.origin);
    })();
    return {
      answer: unknown ? DOES_NOT_KNOW : result.text.trim(),
      hits,
      usage: { model: result.model, inputTokens: result.inputTokens, outputTokens: result.outputTokens, credits: spent },
      ...(unknown ? { note: 'The model found no answer in the matching entries. The question was added to this base\'s unanswered list.' } : {}),
    };
  }

  listUnanswered(principal: Principal, kbId: string): UnansweredItem[] {
    this.deps.bases.require(principal, kbId);
    return this.unanswered.list(kbId, ASK_LIMITS.unansweredList);
  }

  /** One exact query as listed, or every one when `query` is omitted. */
  clearUnanswered(principal: Principal, kbId: string, query?: string): { ok: true; removed: number } {
    this.deps.bases.require(principal, kbId);
    const removed = query === undefined ? this.unanswered.deleteAll(kbId) : this.unanswered.deleteExact(kbId, query);
    return { ok: true, removed };
  }
}

/** Entries the answer cites; an answer that cites none was still drawn from the best one. */
function citedOrBest(answer: string, hits: readonly SearchHit[]): SearchHit[] {
  const cited = citedHits(answer, hits);
  return cited.length ? cited : [hits[0]];
}

/** The same rules as the route's schema, for callers that are not HTTP (the flow engine). */
export function validateAsk(options: AskOptions): { query: string; topK: number; minScore: number } {
  const query = typeof options.query === 'string' ? options.query.trim() : '';
  if (!query) throw fieldError('query', 'A question is required.');
  if (query.length > ASK_LIMITS.queryMax) throw fieldError('query', `At most ${ASK_LIMITS.queryMax} characters.`);
  const topK = options.topK ?? ASK_LIMITS.topKDefault;
  if (!Number.isInteger(topK) || topK < ASK_LIMITS.topKMin || topK > ASK_LIMITS.topKMax) {
    throw fieldError('topK', `Expected a whole number from ${ASK_LIMITS.topKMin} to ${ASK_LIMITS.topKMax}.`);
  }
  const minScore = options.minScore ?? ASK_LIMITS.minScoreDefault;
  if (!Number.isFinite(minScore) || minScore < 0 || minScore > 1) throw fieldError('minScore', 'Expected a number from 0 to 1.');
  return { query, topK, minScore };
}
