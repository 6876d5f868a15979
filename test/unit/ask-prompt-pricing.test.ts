import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildAskMessages, citedHits, NO_ANSWER_MARKER, saysItDoesNotKnow } from '../../src/main/engine/ask/ask.prompt.ts';
import { unansweredKey } from '../../src/main/engine/ask/unanswered.repository.ts';
import {
  completionCredits,
  CREDITS_PER_1K_INPUT_TOKENS,
  CREDITS_PER_1K_OUTPUT_TOKENS,
  CREDITS_PER_EMBEDDING_TOKEN,
  CREDITS_PER_WEB_SEARCH,
  embeddingCredits,
  submissionCredits,
} from '../../src/main/engine/credits/pricing.ts';
import type { SearchHit } from '../../src/main/engine/knowledge/knowledge.api.ts';

const hit = (n: number): SearchHit => ({ id: `id${n}`, subject: `S${n}`, question: `Q${n}?`, answer: `A${n}.`, vectorScore: 0.5, score: 0.5 });

describe('ask prompt', () => {
  it('numbers the hits in order and ends with the question', () => {
    const [system, user] = buildAskMessages('why?', [hit(1), hit(2)]);
    assert.equal(system.role, 'system');
    assert.equal(user.content, 'Entries:\n\n[1] Subject: S1\nQuestion: Q1?\nAnswer: A1.\n\n[2] Subject: S2\nQuestion: Q2?\nAnswer: A2.\n\nQuestion: why?');
  });

  it('reads citations [n] and [n, m], ignoring numbers outside the list', () => {
    const hits = [hit(1), hit(2), hit(3)];
    assert.deepEqual(citedHits('Yes [3]. Also [1, 2] and [1]. Not [4] or [0].', hits).map((h) => h.id), ['id1', 'id2', 'id3']);
    assert.deepEqual(citedHits('No citations here.', hits), []);
  });

  it('recognises the no-answer marker, also wrapped in words, and an empty reply', () => {
    assert.ok(saysItDoesNotKnow(NO_ANSWER_MARKER));
    assert.ok(saysItDoesNotKnow(`Sorry: ${NO_ANSWER_MARKER}.`));
    assert.ok(saysItDoesNotKnow('  '));
    assert.ok(!saysItDoesNotKnow('Press Reset [1].'));
  });

  it('folds case and spacing of unanswered queries into one key', () => {
    assert.equal(unansweredKey('  Reset   PASSWORD? '), 'reset password?');
  });
});

describe('pricing', () => {
  it('prices a completion per 1 000 input and output tokens', () => {
    assert.equal(completionCredits(1000, 0), CREDITS_PER_1K_INPUT_TOKENS);
    assert.equal(completionCredits(0, 1000), CREDITS_PER_1K_OUTPUT_TOKENS);
    assert.ok(CREDITS_PER_1K_OUTPUT_TOKENS > CREDITS_PER_1K_INPUT_TOKENS);
  });

  it('prices a submission as input plus a third of output, at the input rate, plus web searches', () => {
    assert.equal(submissionCredits(3000, 3000), (4000 * CREDITS_PER_1K_INPUT_TOKENS) / 1000);
    assert.equal(submissionCredits(0, 0, 2), 2 * CREDITS_PER_WEB_SEARCH);
  });

  it('prices embeddings per token', () => {
    assert.equal(embeddingCredits(50), 50 * CREDITS_PER_EMBEDDING_TOKEN);
  });
});
