import assert from 'node:assert/strict';
import type { Entry } from '../../src/main/engine/knowledge/entries.types.ts';
import type { TestHearth } from './hearth.ts';

export const K = '/api/ai/knowledge';
export const OTHER_UUID = '0b9f4a52-6a43-4d2e-9c1f-2f3a4b5c6d7e';

/** An entry as the API returns it; `conflicts` only on add. */
export type EntryBody = Entry & { conflicts?: number };

export interface ErrorBody {
  success: false;
  error: string;
  code: string;
  details?: { fieldErrors?: Record<string, string[]>; balance?: number; required?: string };
}

export interface HitBody {
  id: string;
  subject: string;
  question: string;
  answer: string;
  vectorScore: number;
  score: number;
}

export async function createBase(hearth: TestHearth, token: string, name = 'Test base'): Promise<string> {
  const res = await hearth.request<{ id: string }>('POST', `${K}/bases`, { token, body: { name } });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

export async function addEntry(hearth: TestHearth, token: string, kbId: string, body: Record<string, unknown>): Promise<EntryBody> {
  const res = await hearth.request<EntryBody>('POST', `${K}/bases/${kbId}/entries`, { token, body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

export async function search(hearth: TestHearth, token: string, kbId: string, query: string, topK?: number): Promise<HitBody[]> {
  const res = await hearth.request<{ hits: HitBody[]; embeddingTokens: number }>('POST', `${K}/bases/${kbId}/search`, { token, body: { query, ...(topK ? { topK } : {}) } });
  assert.equal(res.status, 200, res.text);
  return res.body.hits;
}

export function assertFieldError(res: { status: number; body: unknown; text: string }, field: string): void {
  assert.equal(res.status, 400, res.text);
  const body = res.body as ErrorBody;
  assert.equal(body.code, 'BAD_REQUEST');
  assert.ok(body.details?.fieldErrors?.[field], `expected fieldErrors.${field} in ${res.text}`);
}

export function assertStatus(res: { status: number; body: unknown; text: string }, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal((res.body as ErrorBody).code, code, res.text);
}
