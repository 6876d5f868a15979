import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../http/route.ts';
import { jsonObjectSchema } from './nodes/node.types.ts';

/**
 * The local messaging entry point: a bridge to a real messaging product (or `hearth message send`)
 * delivers incoming messages here; sendMessaging nodes write to the outbox read here.
 */
const inboundBody = z.object({
  channel: z.string().trim().min(1).max(100).default('local'),
  from: z.string().trim().min(1, 'from is required').max(500),
  text: z.string().min(1, 'text is required').max(10_000),
  meta: jsonObjectSchema.optional(),
});

const outboxQuery = z.object({
  flowId: z.string().uuid().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

const webhookUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((v) => /^https?:\/\//i.test(v), { message: 'Expected an http:// or https:// URL' })
  .nullable();
const settingsBody = z.strictObject({ webhookUrl });

export const messagingRoutes: AnyRoute[] = [
  defineRoute({
    method: 'POST',
    family: 'workflows',
    path: '/messaging/inbound',
    scope: 'workflows:write',
    body: inboundBody,
    status: 202,
    handler: ({ engine, principal, body }) => {
      const { fired, skipped } = engine.flows.receiveMessage(principal, body);
      return { received: true, count: fired.length, fired, skipped };
    },
  }),
  defineRoute({
    method: 'GET',
    family: 'workflows',
    path: '/messaging/outbox',
    scope: 'workflows:read',
    query: outboxQuery,
    handler: ({ engine, principal, query }) => engine.flows.messaging.outbox(principal, query),
  }),
  defineRoute({
    method: 'GET',
    family: 'workflows',
    path: '/messaging/settings',
    scope: 'workflows:read',
    handler: ({ engine, principal }) => ({ webhookUrl: engine.flows.messaging.webhookUrl(principal.workspaceId) }),
  }),
  defineRoute({
    method: 'PUT',
    family: 'workflows',
    path: '/messaging/settings',
    scope: 'workflows:write',
    body: settingsBody,
    handler: ({ engine, principal, body }) => {
      engine.flows.messaging.setWebhookUrl(principal.workspaceId, body.webhookUrl);
      return { webhookUrl: engine.flows.messaging.webhookUrl(principal.workspaceId) };
    },
  }),
];
