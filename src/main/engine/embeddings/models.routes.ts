import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../http/route.ts';
import { notFound } from '../shared/errors.ts';

const installBody = z.object({
  repo: z.string().trim().min(1, 'repo is required'),
  name: z.string().trim().min(1).max(100).optional(),
  languages: z.string().trim().max(200).optional(),
  queryPrefix: z.string().max(100).optional(),
  passagePrefix: z.string().max(100).optional(),
});

const importBody = z.object({
  path: z.string().trim().min(1, 'path is required'),
  name: z.string().trim().min(1).max(100).optional(),
});

/**
 * The app's model settings page. Adding models writes to the user's disk and may download hundreds of MB,
 * so those routes are for the app's own session only; listing is a plain read.
 */
export const embeddingModelRoutes: AnyRoute[] = [
  defineRoute({
    method: 'GET',
    family: 'app',
    path: '/models',
    scope: 'knowledge:read',
    handler: ({ engine }) => ({
      defaultModelId: engine.embeddings.defaultModelId,
      models: engine.embeddingLibrary.list().map((m) => ({ ...m, isDefault: m.id === engine.embeddings.defaultModelId })),
    }),
  }),
  defineRoute({
    method: 'POST',
    family: 'app',
    path: '/models/install',
    scope: 'knowledge:write',
    appOnly: true,
    body: installBody,
    status: 202,
    handler: ({ engine, body }) => ({ job: engine.embeddingLibrary.startInstall(body) }),
  }),
  defineRoute({
    method: 'GET',
    family: 'app',
    path: '/models/jobs/:jobId',
    scope: 'knowledge:read',
    appOnly: true,
    uuidParams: ['jobId'],
    handler: ({ engine, params }) => {
      const job = engine.embeddingLibrary.job(params.jobId);
      if (!job) throw notFound(`Model job ${params.jobId}`);
      return { job };
    },
  }),
  defineRoute({
    method: 'POST',
    family: 'app',
    path: '/models/import',
    scope: 'knowledge:write',
    appOnly: true,
    body: importBody,
    status: 201,
    handler: async ({ engine, body }) => ({ model: await engine.embeddingLibrary.import(body) }),
  }),
];
