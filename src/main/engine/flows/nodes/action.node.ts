import { z } from 'zod';
import type { Principal, Scope } from '../../identity/identity.types.ts';
import { isUuid } from '../../shared/ids.ts';
import type { Item, Json } from '../flows.types.ts';
import { hasMergeFields, readPath, renderDeep, renderText } from '../merge-fields.ts';
import { defineNode, jsonObjectSchema, NodeError, scopeFor, type NodeRunContext } from './node.types.ts';
import { deletePath, setPath } from './paths.ts';

export const ACTION_OPERATIONS = ['set', 'rename', 'knowledgeSearch', 'knowledgeAsk', 'knowledgeAddEntry'] as const;
const KNOWLEDGE_OPERATIONS: ReadonlySet<string> = new Set(['knowledgeSearch', 'knowledgeAsk', 'knowledgeAddEntry']);

// One flat object rather than a union per operation: the canvas shows one form, and a configPatch
// that switches `operation` keeps the other operation's settings instead of failing validation.
const configSchema = z
  .strictObject({
    operation: z.enum(ACTION_OPERATIONS).default('set'),
    fields: jsonObjectSchema.default({}).describe('set: fields to set on each item (dotted keys nest); values may hold merge fields.'),
    keepOnlySet: z.boolean().default(false).describe('set: drop every field that is not in `fields`.'),
    renames: z.record(z.string().min(1), z.string().min(1)).default({}).describe('rename: old field path -> new field path.'),
    kbId: z.string().max(200).default('').describe('knowledge*: the knowledge base id (merge fields allowed).'),
    query: z.string().max(10_000).default('{{text}}').describe('knowledgeSearch, knowledgeAsk: the query.'),
    topK: z.number().int().min(1).max(20).default(5),
    minScore: z.number().min(0).max(1).default(0.35).describe('knowledgeAsk: hits below this score are not used.'),
    entry: z
      .strictObject({ subject: z.string().max(500), question: z.string().max(5000), answer: z.string().max(20_000) })
      .default({ subject: '{{subject}}', question: '{{question}}', answer: '{{answer}}' })
      .describe('knowledgeAddEntry: the entry to add; merge fields allowed.'),
  })
  .superRefine((c, ctx) => {
    if (KNOWLEDGE_OPERATIONS.has(c.operation) && !c.kbId.trim()) ctx.addIssue({ code: 'custom', path: ['kbId'], message: `Operation ${c.operation} needs kbId` });
  });
type ActionConfig = z.output<typeof configSchema>;

function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) throw new NodeError(`The token that started this run lacks the ${scope} scope this operation needs.`);
}

function setFields(ctx: NodeRunContext<ActionConfig>): Item[] {
  const { fields, keepOnlySet } = ctx.config;
  const entries = Object.entries(fields);
  const dynamic = hasMergeFields(fields);
  return ctx.items.map((item, index) => {
    const values = dynamic ? (renderDeep(fields, scopeFor(ctx, index)) as Json) : fields;
    let json: Json = keepOnlySet ? {} : { ...item.json };
    for (const [key] of entries) json = setPath(json, key, values[key]);
    return { json };
  });
}

function renameFields(ctx: NodeRunContext<ActionConfig>): Item[] {
  const renames = Object.entries(ctx.config.renames);
  return ctx.items.map((item) => {
    let json = item.json;
    for (const [from, to] of renames) {
      const value = readPath(json, from);
      if (value === undefined) continue;
      json = setPath(deletePath(json, from), to, value);
    }
    return { json };
  });
}

function resolveKbId(ctx: NodeRunContext<ActionConfig>, index: number): string {
  const kbId = renderText(ctx.config.kbId, scopeFor(ctx, index)).trim();
  if (!isUuid(kbId)) throw new NodeError(`"${kbId}" is not a knowledge base id.`);
  return kbId;
}

async function knowledgeOperation(ctx: NodeRunContext<ActionConfig>): Promise<Item[]> {
  const output: Item[] = [];
  for (let index = 0; index < ctx.items.length; index++) {
    const scope = scopeFor(ctx, index);
    const kbId = resolveKbId(ctx, index);
    const json = { ...ctx.items[index].json };
    if (ctx.config.operation === 'knowledgeSearch') {
      requireScope(ctx.principal, 'knowledge:read');
      const knowledge = ctx.services.knowledge();
      if (!knowledge) throw new NodeError('Knowledge search is not available in this Hearth build.');
      const result = await knowledge.search(ctx.principal, kbId, renderText(ctx.config.query, scope), ctx.config.topK);
      json.hits = result.hits;
      json.embeddingTokens = result.embeddingTokens;
    } else if (ctx.config.operation === 'knowledgeAsk') {
      requireScope(ctx.principal, 'knowledge:read');
      const ask = ctx.services.ask();
      if (!ask) throw new NodeError('Asking a knowledge base is not available in this Hearth build.');
      const balance = ctx.services.credits.balance(ctx.principal.workspaceId);
      if (balance <= 0) throw new NodeError(`The workspace has no credits left (balance ${balance}).`);
      const reply = await ask.ask(ctx.principal, kbId, { query: renderText(ctx.config.query, scope), topK: ctx.config.topK, minScore: ctx.config.minScore, origin: 'flow' });
      json.answer = reply.answer;
      json.hits = reply.hits;
      if (reply.note) json.note = reply.note;
      json._llm = reply.usage;
    } else {
      requireScope(ctx.principal, 'knowledge:write');
      const knowledge = ctx.services.knowledge();
      if (!knowledge?.addEntry) throw new NodeError('Adding knowledge entries is not available in this Hearth build.');
      const entry = ctx.config.entry;
      const input = { subject: renderText(entry.subject, scope).trim(), question: renderText(entry.question, scope).trim(), answer: renderText(entry.answer, scope).trim() };
      // The same bounds as POST /bases/{kbId}/entries (contract 2.3), checked after merge fields.
      for (const [field, max] of [['subject', 60], ['question', 500], ['answer', 2000]] as const) {
        if (input[field].length < 1 || input[field].length > max) throw new NodeError(`The entry's ${field} must be 1-${max} characters after merge fields (got ${input[field].length}).`);
      }
      const added = await knowledge.addEntry(ctx.principal, kbId, input);
      json.entry = added;
    }
    output.push({ json });
  }
  return output;
}

export const actionNode = defineNode({
  type: 'action',
  label: 'Action',
  category: 'data',
  description:
    'Works on each item: set fields, rename fields, or use a knowledge base: knowledgeSearch adds `hits`, knowledgeAsk adds ' +
    '`answer`, `hits` and `_llm` (spends credits), knowledgeAddEntry adds the new `entry` { id, status, conflicts }.',
  pins: { input: true, output: true },
  configSchema,
  spendsCredits: (config) => config.operation === 'knowledgeAsk',
  run: (ctx) => {
    switch (ctx.config.operation) {
      case 'set':
        return { output: setFields(ctx) };
      case 'rename':
        return { output: renameFields(ctx) };
      default:
        return knowledgeOperation(ctx).then((output) => ({ output }));
    }
  },
});
