import { z } from 'zod';
import type { ChatMessage } from '../../llm/llm.types.ts';
import type { Item } from '../flows.types.ts';
import { renderText } from '../merge-fields.ts';
import { defineNode, NodeError, scopeFor } from './node.types.ts';

const configSchema = z.strictObject({
  model: z.string().max(200).default('').describe('Model name on the workspace model provider; empty uses the workspace default.'),
  systemPrompt: z.string().max(100_000).default('').describe('Optional system message; merge fields allowed.'),
  prompt: z.string().min(1).max(400_000).default('{{text}}').describe('The user message sent once per item; merge fields allowed.'),
  outputType: z.enum(['text', 'json']).default('text').describe('text adds the reply as `text`; json asks for a JSON object and adds it, parsed, as `data`.'),
  temperature: z.number().min(0).max(2).default(0.7),
  maxOutputTokens: z.number().int().min(1).max(32_768).default(512),
});

/** Models often wrap JSON in a fenced block even when asked not to. */
function parseJsonReply(text: string): unknown {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(text);
  return JSON.parse(fenced ? fenced[1] : text);
}

export const llmChainNode = defineNode({
  type: 'llmChain',
  label: 'LLM chain',
  category: 'ai',
  description:
    'Sends the prompt to the workspace model once per item and adds the reply (`text`, or `data` for JSON) and ' +
    '`_llm` = { model, inputTokens, outputTokens, credits }. Spends credits per item.',
  pins: { input: true, output: true },
  configSchema,
  spendsCredits: () => true,
  run: async (ctx) => {
    const llm = ctx.services.llm();
    if (!llm) throw new NodeError('No model provider is available in this Hearth build. Configure a model in Settings (or `hearth model set`).');
    const workspaceId = ctx.principal.workspaceId;
    const output: Item[] = [];
    for (let index = 0; index < ctx.items.length; index++) {
      // Each item is a separate call; once the balance is gone, the next item does not start.
      const balance = ctx.services.credits.balance(workspaceId);
      if (balance <= 0) throw new NodeError(`The workspace has no credits left (balance ${balance}); ${index} of ${ctx.items.length} items were processed.`);
      const scope = scopeFor(ctx, index);
      const messages: ChatMessage[] = [];
      const system = renderText(ctx.config.systemPrompt, scope);
      if (system.trim()) messages.push({ role: 'system', content: system });
      messages.push({ role: 'user', content: renderText(ctx.config.prompt, scope) });
      const result = await llm.complete(workspaceId, {
        messages,
        model: ctx.config.model || undefined,
        temperature: ctx.config.temperature,
        maxOutputTokens: ctx.config.maxOutputTokens,
        json: ctx.config.outputType === 'json',
      });
      const credits = llm.creditsFor(result.inputTokens, result.outputTokens);
      ctx.services.credits.spend(workspaceId, { call: 'flow.llmChain', model: result.model, inputTokens: result.inputTokens, outputTokens: result.outputTokens, credits });
      const usage = { model: result.model, inputTokens: result.inputTokens, outputTokens: result.outputTokens, credits };
      const json = { ...ctx.items[index].json };
      if (ctx.config.outputType === 'json') {
        try {
          json.data = parseJsonReply(result.text);
        } catch {
          throw new NodeError(`The model did not reply with JSON: ${result.text.slice(0, 300)}`);
        }
      } else {
        json.text = result.text;
      }
      json._llm = usage;
      output.push({ json });
    }
    return { output };
  },
});
