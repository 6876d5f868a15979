import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../http/route.ts';
import { ENTRY_LIMITS, ENTRY_STATUSES } from './entries.types.ts';

/** Lengths count characters (code points), so an emoji is one, as a user would count. */
function text(label: string, max: number, min = 1): z.ZodString {
  return z
    .string()
    .trim()
    .refine((s) => [...s].length >= min, { message: `${label} is required` })
    .refine((s) => [...s].length <= max, { message: `${label}: at most ${max} characters` });
}

const subject = text('Subject', ENTRY_LIMITS.subject);
const question = text('Question', ENTRY_LIMITS.question);
const answer = text('Answer', ENTRY_LIMITS.answer);
const altQuestions = z.array(text('Alternative question', ENTRY_LIMITS.altQuestion)).max(ENTRY_LIMITS.altQuestions, `At most ${ENTRY_LIMITS.altQuestions} alternative questions`);
const keywords = z.array(text('Keyword', ENTRY_LIMITS.keyword)).max(ENTRY_LIMITS.keywords, `At most ${ENTRY_LIMITS.keywords} keywords`);
const validUntil = z
  .iso.datetime({ offset: true, message: 'Expected an ISO 8601 date-time' })
  .transform((s) => new Date(s).toISOString())
  .nullable();

const addBody = z.object({
  subject,
  question,
  answer,
  altQuestions: altQuestions.optional(),
  keywords: keywords.optional(),
  validUntil: validUntil.optional(),
});

const patchBody = z
  .object({
    subject,
    question,
    answer,
    altQuestions,
    keywords,
    validUntil,
    status: z.enum(ENTRY_STATUSES),
    resolveConflict: z.enum(['keep', 'replace']),
  })
  .partial()
  .refine((b) => Object.keys(b).length > 0, { message: 'Send at least one field to change' });

const bulkBody = z
  .object({
    ids: z.array(z.string()).min(1, 'Send at least one id').max(ENTRY_LIMITS.bulkIds, `At most ${ENTRY_LIMITS.bulkIds} ids`),
    action: z.enum(['approve', 'activate', 'archive', 'delete', 'setSubject']),
    subject: subject.optional(),
  })
  .superRefine((b, ctx) => {
    if (b.action === 'setSubject' && b.subject === undefined) ctx.addIssue({ code: 'custom', path: ['subject'], message: 'subject is required for setSubject' });
  });

const importRow = z.object({
  subject: z.union([text('Subject', ENTRY_LIMITS.subject, 0), z.null()]).optional(),
  question,
  answer,
  altQuestions: altQuestions.optional(),
  keywords: keywords.optional(),
  validUntil: validUntil.optional(),
});

export const importBody = z.object({
  rows: z.array(importRow).min(1, 'Send at least one row').max(ENTRY_LIMITS.importRows, `At most ${ENTRY_LIMITS.importRows} rows`),
});

const listQuery = z.object({
  q: z.string().optional(),
  subject: z.string().optional(),
  source: z.string().optional(),
  status: z.enum(['active', 'draft', 'archived', 'all', 'conflicts', 'expiring']).optional(),
  sort: z.enum(['newest', 'hits', 'unused', 'subject']).optional(),
  limit: z.coerce.number().int().min(1).max(ENTRY_LIMITS.listLimit).optional(),
  offset: z.coerce.number().int().min(0).optional(),
});

const searchBody = z.object({
  query: text('Query', ENTRY_LIMITS.searchQuery),
  topK: z.number().int().min(1).max(ENTRY_LIMITS.searchTopK).optional(),
});

const exportQuery = z.object({ format: z.enum(['csv', 'json']).optional() });

const kb = ['kbId'] as const;
const kbEntry = ['kbId', 'id'] as const;

export const entriesRoutes: AnyRoute[] = [
  defineRoute({
    method: 'POST',
    family: 'knowledge',
    path: '/bases/:kbId/search',
    scope: 'knowledge:read',
    uuidParams: kb,
    body: searchBody,
    handler: ({ engine, principal, params, body }) => engine.knowledge.search(principal, params.kbId, body.query, body.topK ?? ENTRY_LIMITS.defaultSearchTopK),
  }),
  defineRoute({
    method: 'GET',
    family: 'knowledge',
    path: '/bases/:kbId/entries',
    scope: 'knowledge:read',
    uuidParams: kb,
    query: listQuery,
    handler: ({ engine, principal, params, query }) => engine.knowledge.listEntries(principal, params.kbId, query),
  }),
  defineRoute({
    method: 'GET',
    family: 'knowledge',
    path: '/bases/:kbId/subjects',
    scope: 'knowledge:read',
    uuidParams: kb,
    handler: ({ engine, principal, params }) => engine.knowledge.subjects(principal, params.kbId),
  }),
  defineRoute({
    method: 'POST',
    family: 'knowledge',
    path: '/bases/:kbId/entries',
    scope: 'knowledge:write',
    uuidParams: kb,
    body: addBody,
    status: 201,
    handler: ({ engine, principal, params, body }) => engine.knowledge.createEntry(principal, params.kbId, body),
  }),
  defineRoute({
    method: 'POST',
    family: 'knowledge',
    path: '/bases/:kbId/entries/bulk',
    scope: 'knowledge:write',
    uuidParams: kb,
    body: bulkBody,
    handler: ({ engine, principal, params, body }) => engine.knowledge.bulk(principal, params.kbId, body.ids, body.action, body.subject),
  }),
  defineRoute({
    method: 'PATCH',
    family: 'knowledge',
    path: '/bases/:kbId/entries/:id',
    scope: 'knowledge:write',
    uuidParams: kbEntry,
    body: patchBody,
    handler: ({ engine, principal, params, body }) => engine.knowledge.patchEntry(principal, params.kbId, params.id, body),
  }),
  defineRoute({
    method: 'DELETE',
    family: 'knowledge',
    path: '/bases/:kbId/entries/:id',
    scope: 'knowledge:write',
    uuidParams: kbEntry,
    handler: ({ engine, principal, params }) => {
      engine.knowledge.deleteEntry(principal, params.kbId, params.id);
      return { ok: true };
    },
  }),
  defineRoute({
    method: 'POST',
    family: 'knowledge',
    path: '/bases/:kbId/import',
    scope: 'knowledge:write',
    uuidParams: kb,
    body: importBody,
    handler: ({ engine, principal, params, body }) =>
      engine.knowledge.importRows(
        principal,
        params.kbId,
        body.rows.map((r) => ({ ...r, subject: r.subject ?? undefined })),
      ),
  }),
  defineRoute({
    method: 'GET',
    family: 'knowledge',
    path: '/bases/:kbId/export',
    scope: 'knowledge:read',
    uuidParams: kb,
    query: exportQuery,
    handler: ({ engine, principal, params, query, reply }) => {
      if (query.format === 'json') return engine.knowledge.exportEntries(principal, params.kbId);
      const csv = engine.knowledge.exportCsv(principal, params.kbId);
      return reply.code(200).type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="knowledge-${params.kbId}.csv"`).send(csv);
    },
  }),
];
