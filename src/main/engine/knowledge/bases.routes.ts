import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../http/route.ts';
import { LIMITS } from './knowledge.types.ts';

const name = z.string().trim().min(1, 'Name is required').max(LIMITS.baseName, `At most ${LIMITS.baseName} characters`);
const description = z.string().max(LIMITS.baseDescription, `At most ${LIMITS.baseDescription} characters`);
const defaultLanguage = z.string().trim().min(1).max(40).nullable();

const createBody = z.object({
  name,
  description: description.optional(),
  reviewBeforeIndex: z.boolean().optional(),
  defaultLanguage: defaultLanguage.optional(),
});

// embeddingModel is Hearth's extension of the contract's PATCH: switching re-embeds the base in the background.
const patchBody = z
  .object({ name, description, reviewBeforeIndex: z.boolean(), defaultLanguage, embeddingModel: z.string().trim().min(1).max(200) })
  .partial()
  .refine((b) => Object.keys(b).length > 0, { message: 'Send at least one of name, description, reviewBeforeIndex, defaultLanguage, embeddingModel' });

const kb = ['kbId'] as const;

export const basesRoutes: AnyRoute[] = [
  defineRoute({
    method: 'GET',
    family: 'knowledge',
    path: '/bases',
    scope: 'knowledge:read',
    handler: ({ engine, principal }) => engine.bases.list(principal),
  }),
  defineRoute({
    method: 'POST',
    family: 'knowledge',
    path: '/bases',
    scope: 'knowledge:write',
    body: createBody,
    status: 201,
    handler: ({ engine, principal, body }) => engine.bases.create(principal, body),
  }),
  defineRoute({
    method: 'GET',
    family: 'knowledge',
    path: '/bases/:kbId',
    scope: 'knowledge:read',
    uuidParams: kb,
    handler: ({ engine, principal, params }) => engine.bases.require(principal, params.kbId),
  }),
  defineRoute({
    method: 'PATCH',
    family: 'knowledge',
    path: '/bases/:kbId',
    scope: 'knowledge:write',
    uuidParams: kb,
    body: patchBody,
    handler: ({ engine, principal, params, body }) => {
      const { embeddingModel, ...changes } = body;
      // Checked (and refused with 400) before anything else changes.
      if (embeddingModel !== undefined) engine.knowledge.changeModel(principal, params.kbId, embeddingModel);
      return Object.keys(changes).length > 0 ? engine.bases.update(principal, params.kbId, changes) : engine.bases.require(principal, params.kbId);
    },
  }),
  defineRoute({
    method: 'DELETE',
    family: 'knowledge',
    path: '/bases/:kbId',
    scope: 'knowledge:write',
    appOnly: true,
    uuidParams: kb,
    handler: ({ engine, principal, params }) => {
      engine.knowledge.deleteBase(principal, params.kbId);
      return { ok: true };
    },
  }),
];
