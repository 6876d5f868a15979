import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { LlmError, OpenAiCompatibleProvider, parseRetryAfter, type ProviderConfig } from '../../src/main/engine/llm/openai-compatible.provider.ts';
import { estimateInputTokens, estimateTokens } from '../../src/main/engine/llm/token-estimate.ts';
import type { ChatMessage } from '../../src/main/engine/llm/llm.types.ts';
import { FakeLlmServer } from '../helpers/fake-llm-server.ts';

const MESSAGES: ChatMessage[] = [
  { role: 'system', content: 'Answer briefly.' },
  { role: 'user', content: 'What colour is the sky on a clear day?' },
];

describe('OpenAI-compatible provider against a scripted server', () => {
  let fake: FakeLlmServer;
  const provider = (overrides: Partial<ProviderConfig> = {}): OpenAiCompatibleProvider =>
    new OpenAiCompatibleProvider({ baseUrl: fake.baseUrl, apiKey: null, model: 'tiny', timeoutMs: 2000, stream: false, retryBaseMs: 40, ...overrides });

  before(async () => {
    fake = await FakeLlmServer.start();
  });
  beforeEach(() => fake.reset());
  after(() => fake.close());

  it('posts to {baseUrl}/chat/completions and reads a plain reply with the server usage', async () => {
    fake.script({ reply: 'Blue.', usage: { prompt_tokens: 31, completion_tokens: 2 }, model: 'tiny:1b' });
    const result = await provider({ apiKey: 'sk-test-123' }).complete({ messages: MESSAGES, temperature: 0.2, maxOutputTokens: 64, json: true });
    assert.deepEqual(result, { text: 'Blue.', model: 'tiny:1b', inputTokens: 31, outputTokens: 2, usageEstimated: false });
    assert.equal(fake.requests.length, 1);
    const [req] = fake.requests;
    assert.equal(req.path, '/v1/chat/completions');
    assert.equal(req.headers.authorization, 'Bearer sk-test-123');
    assert.deepEqual(req.body.messages, MESSAGES);
    assert.equal(req.body.model, 'tiny');
    assert.equal(req.body.stream, false);
    assert.equal(req.body.temperature, 0.2);
    assert.equal(req.body.max_tokens, 64);
    assert.deepEqual(req.body.response_format, { type: 'json_object' });
  });

  it('sends no Authorization header without a key, and a trailing slash on the base URL changes nothing', async () => {
    fake.script({ reply: 'ok', usage: { prompt_tokens: 1, completion_tokens: 1 } });
    await provider({ baseUrl: fake.baseUrl + '/' }).complete({ messages: MESSAGES });
    assert.equal(fake.requests[0].path, '/v1/chat/completions');
    assert.equal(fake.requests[0].headers.authorization, undefined);
  });

  it('reads an SSE stream chunk by chunk, asking for include_usage, and takes the usage chunk', async () => {
    const reply = 'The sky is blue on a clear day, because of Rayleigh scattering.';
    fake.script({ reply, usage: { prompt_tokens: 40, completion_tokens: 15 }, chunkSize: 3 });
    const result = await provider({ stream: true }).complete({ messages: MESSAGES });
    assert.equal(result.text, reply);
    assert.equal(result.inputTokens, 40);
    assert.equal(result.outputTokens, 15);
    assert.equal(result.usageEstimated, false);
    assert.equal(fake.requests[0].body.stream, true);
    assert.deepEqual(fake.requests[0].body.stream_options, { include_usage: true });
  });

  it('estimates usage, and says so, when the server reports none (plain and streamed)', async () => {
    fake.script({ reply: 'Blue, mostly.', usage: null }, { reply: 'Blue, mostly.', usage: null, stream: true });
    for (const stream of [false, true]) {
      const result = await provider({ stream }).complete({ messages: MESSAGES });
      assert.equal(result.text, 'Blue, mostly.');
      assert.equal(result.usageEstimated, true, `stream=${stream}`);
      assert.equal(result.inputTokens, estimateInputTokens(MESSAGES));
      assert.equal(result.outputTokens, estimateTokens('Blue, mostly.'));
      assert.ok(result.inputTokens > 10 && result.outputTokens >= 2);
    }
  });

  it('handles a streamed reply even when a plain one was asked for (servers that always stream)', async () => {
    fake.script({ reply: 'streamed anyway', usage: { prompt_tokens: 5, completion_tokens: 3 }, stream: true });
    const result = await provider({ stream: false }).complete({ messages: MESSAGES });
    assert.equal(result.text, 'streamed anyway');
    assert.equal(result.usageEstimated, true, 'no include_usage was asked for, so the usage chunk is not sent');
  });

  it('retries a 429 after the Retry-After it names, then succeeds', async () => {
    fake.script({ status: 429, retryAfter: '1', message: 'slow down' }, { reply: 'fine', usage: { prompt_tokens: 3, completion_tokens: 1 } });
    const result = await provider().complete({ messages: MESSAGES });
    assert.equal(result.text, 'fine');
    assert.equal(fake.requests.length, 2);
    const waited = fake.requests[1].at - fake.requests[0].at;
    assert.ok(waited >= 950, `waited ${waited} ms for Retry-After: 1`);
  });

  it('retries 5xx with exponential backoff, then succeeds', async () => {
    fake.script({ status: 500 }, { status: 503 }, { reply: 'back', usage: { prompt_tokens: 3, completion_tokens: 1 } });
    const result = await provider({ retryBaseMs: 60 }).complete({ messages: MESSAGES });
    assert.equal(result.text, 'back');
    assert.equal(fake.requests.length, 3);
    const first = fake.requests[1].at - fake.requests[0].at;
    const second = fake.requests[2].at - fake.requests[1].at;
    assert.ok(first >= 55, `first backoff ${first} ms`);
    assert.ok(second >= 115, `second backoff ${second} ms doubles`);
  });

  it('gives up after the last retry with the server status and words', async () => {
    fake.script({ status: 502, message: 'upstream down' }, { status: 502, message: 'upstream down' }, { status: 502, message: 'upstream down' });
    await assert.rejects(provider({ maxRetries: 2, retryBaseMs: 5 }).complete({ messages: MESSAGES }), (error: unknown) => {
      assert.ok(error instanceof LlmError);
      assert.equal(error.status, 500);
      assert.equal(error.upstreamStatus, 502);
      assert.match(error.message, /answered 502: upstream down after 3 attempts/);
      return true;
    });
    assert.equal(fake.requests.length, 3);
  });

  it('does not retry other errors, and explains them (wrong model: 404, bad key: 401)', async () => {
    fake.script({ status: 404, message: 'model "nope" not found' });
    await assert.rejects(provider({ model: 'nope' }).complete({ messages: MESSAGES }), /answered 404: model "nope" not found/);
    fake.script({ status: 401, message: 'invalid api key' });
    await assert.rejects(provider().complete({ messages: MESSAGES }), /answered 401: invalid api key$/);
    assert.equal(fake.requests.length, 2);
  });

  it('hints at /v1 when a base URL without a version gets a 404', async () => {
    await assert.rejects(provider({ baseUrl: fake.baseUrl.replace(/\/v1$/, '') }).complete({ messages: MESSAGES }), /try a base URL ending in \/v1/);
  });

  it('times out a server that never answers, without retrying', async () => {
    fake.script({ hang: true });
    const started = Date.now();
    await assert.rejects(provider({ timeoutMs: 300 }).complete({ messages: MESSAGES }), (error: unknown) => {
      assert.ok(error instanceof LlmError);
      assert.equal(error.failure, 'timeout');
      assert.match(error.message, /sent nothing for 300 ms/);
      return true;
    });
    const took = Date.now() - started;
    assert.ok(took >= 290 && took < 1500, `took ${took} ms`);
    assert.equal(fake.requests.length, 1);
  });

  it('times out a stream that stops mid-way', async () => {
    fake.script({ hangMidStream: true });
    await assert.rejects(provider({ timeoutMs: 300, stream: true }).complete({ messages: MESSAGES }), /sent nothing for 300 ms/);
  });

  it('reports an unreachable server as such', async () => {
    const closed = await FakeLlmServer.start();
    const url = closed.baseUrl;
    await closed.close();
    await assert.rejects(provider({ baseUrl: url }).complete({ messages: MESSAGES }), /Could not reach the model server .*Is it running\?/);
  });

  it('stops waiting when the caller cancels', async () => {
    fake.script({ hang: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(provider({ timeoutMs: 5000 }).complete({ messages: MESSAGES, signal: controller.signal }), /cancelled/);
  });

  it('parses Retry-After as seconds or as an HTTP date', () => {
    assert.equal(parseRetryAfter('2'), 2000);
    assert.equal(parseRetryAfter('0.5'), 500);
    assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 4_000), 6000);
    assert.equal(parseRetryAfter('soon'), null);
    assert.equal(parseRetryAfter(null), null);
  });
});
