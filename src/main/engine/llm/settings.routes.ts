import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../http/route.ts';
import { MAX_TIMEOUT_MS, MIN_TIMEOUT_MS, MODEL_NAME_MAX } from './llm.service.ts';

// The app's Settings page (family 'app'): the workspace's model and its credits. Reading is open to
// any token of the workspace (the key itself is never returned); changing is for the app only.

const modelBody = z.object({
  baseUrl: z.string().trim().min(1, 'Base URL is required'),
  model: z.string().trim().min(1, 'Model name is required').max(MODEL_NAME_MAX),
  apiKey: z.string().max(4000).nullable().optional(),
  timeoutMs: z.number().int().min(MIN_TIMEOUT_MS).max(MAX_TIMEOUT_MS).optional(),
  stream: z.boolean().optional(),
});

const testBody = modelBody
  .partial()
  .refine((b) => (b.baseUrl === undefined) === (b.model === undefined), { message: 'Send baseUrl and model together, or neither to test the saved settings', path: ['model'] });

const ledgerQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

const balanceBody = z.object({ balance: z.number().min(0, 'At least 0') });

export const settingsRoutes: AnyRoute[] = [
  defineRoute({
    method: 'GET',
    family: 'app',
    path: '/settings/model',
    scope: 'knowledge:read',
    handler: ({ engine, principal }) => engine.llm.settings(principal.workspaceId),
  }),
  defineRoute({
    method: 'PUT',
    family: 'app',
    path: '/settings/model',
    scope: 'knowledge:write',
    appOnly: true,
    body: modelBody,
    handler: ({ engine, principal, body }) => engine.llm.configure(principal.workspaceId, body),
  }),
  defineRoute({
    method: 'DELETE',
    family: 'app',
    path: '/settings/model',
    scope: 'knowledge:write',
    appOnly: true,
    handler: ({ engine, principal }) => engine.llm.clear(principal.workspaceId),
  }),
  defineRoute({
    method: 'POST',
    family: 'app',
    path: '/settings/model/test',
    scope: 'knowledge:write',
    appOnly: true,
    // An empty body tests the saved settings; a full one tests values before they are saved.
    body: testBody,
    handler: ({ engine, principal, body }) =>
      engine.llm.test(principal.workspaceId, body.baseUrl !== undefined && body.model !== undefined ? { ...body, baseUrl: body.baseUrl, model: body.model } : undefined),
  }),
  defineRoute({
    method: 'GET',
    family: 'app',
    path: '/credits',
    scope: 'knowledge:read',
    query: ledgerQuery,
    handler: ({ engine, principal, query }) => ({
      workspaceId: principal.workspaceId,
      balance: engine.credits.balance(principal.workspaceId),
      ledger: engine.credits.ledger(principal.workspaceId, query.limit),
    }),
  }),
  defineRoute({
    method: 'PUT',
    family: 'app',
    path: '/credits/balance',
    scope: 'knowledge:write',
    appOnly: true,
    body: balanceBody,
    handler: ({ engine, principal, body }) => {
      engine.credits.setBalance(principal.workspaceId, body.balance);
      return { workspaceId: principal.workspaceId, balance: engine.credits.balance(principal.workspaceId), ledger: engine.credits.ledger(principal.workspaceId, 100) };
    },
  }),
];
