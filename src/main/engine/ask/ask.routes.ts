import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../http/route.ts';
import { ASK_LIMITS } from './ask.service.ts';

const askBody = z.object({
  query: z.string().trim().min(1, 'A question is required').max(ASK_LIMITS.queryMax, `At most ${ASK_LIMITS.queryMax} characters`),
  topK: z
    .number()
    .int('Expected a whole number')
    .min(ASK_LIMITS.topKMin, `At least ${ASK_LIMITS.topKMin}`)
    .max(ASK_LIMITS.topKMax, `At most ${ASK_LIMITS.topKMax}`)
    .optional(),
  minScore: z.number().min(0, 'At least 0').max(1, 'At most 1').optional(),
});

const unansweredDeleteQuery = z.object({
  // Omitted clears every query; an empty value is refused rather than read as "all".
  query: z.string().min(1, 'Give the exact logged query, or omit it to clear all').optional(),
});

const kb = ['kbId'] as const;

export const askRoutes: AnyRoute[] = [
  defineRoute({
    method: 'POST',
    family: 'knowledge',
    path: '/bases/:kbId/ask',
    scope: 'knowledge:read',
    uuidParams: kb,
    body: askBody,
    handler: ({ engine, principal, params, body }) =>
      engine.ask.ask(principal, params.kbId, { ...body, origin: principal.kind === 'app' ? 'app' : 'api' }),
  }),
  defineRoute({
    method: 'GET',
    family: 'knowledge',
    path: '/bases/:kbId/unanswered',
    scope: 'knowledge:read',
    uuidParams: kb,
    handler: ({ engine, principal, params }) => engine.ask.listUnanswered(principal, params.kbId),
  }),
  defineRoute({
    method: 'DELETE',
    family: 'knowledge',
    path: '/bases/:kbId/unanswered',
    scope: 'knowledge:write',
    uuidParams: kb,
    query: unansweredDeleteQuery,
    handler: ({ engine, principal, params, query }) => {
      engine.ask.clearUnanswered(principal, params.kbId, query.query);
      return { ok: true };
    },
  }),
];
