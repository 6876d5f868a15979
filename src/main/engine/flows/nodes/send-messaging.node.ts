import { z } from 'zod';
import type { Item } from '../flows.types.ts';
import { renderText } from '../merge-fields.ts';
import { defineNode, NodeError, scopeFor } from './node.types.ts';

const configSchema = z.strictObject({
  channel: z.string().max(100).default('{{channel}}').describe('Channel to send on; empty after merge fields means "local".'),
  recipient: z.string().max(500).default('{{from}}').describe('Who receives the message; by default the sender of the incoming message.'),
  text: z.string().max(10_000).default('{{text}}').describe('Message text; merge fields allowed.'),
  webhookUrl: z
    .string()
    .max(2000)
    .default('')
    .describe('POST each message here (JSON, retried up to 3 times). Empty uses the workspace setting (PUT /messaging/settings); with neither, the message stays in the local outbox.'),
});

export const sendMessagingNode = defineNode({
  type: 'sendMessaging',
  label: 'Send message',
  category: 'messaging',
  description:
    'Sends one message per item: written to the local outbox (GET /messaging/outbox) and, when a webhook URL is set, POSTed ' +
    'there. Adds { message: { id, channel, recipient, text, delivery } } to the item. A webhook that keeps failing fails the node.',
  pins: { input: true, output: true },
  configSchema,
  spendsCredits: () => false,
  run: async (ctx) => {
    const output: Item[] = [];
    for (let index = 0; index < ctx.items.length; index++) {
      const scope = scopeFor(ctx, index);
      const recipient = renderText(ctx.config.recipient, scope).trim();
      const text = renderText(ctx.config.text, scope);
      if (!recipient) throw new NodeError('The recipient is empty (after merge fields).');
      if (!text.trim()) throw new NodeError('The message text is empty (after merge fields).');
      const channel = renderText(ctx.config.channel, scope).trim() || 'local';
      const webhookUrl = renderText(ctx.config.webhookUrl, scope).trim();
      const sent = await ctx.services.sendMessage(
        { principal: ctx.principal, flowId: ctx.flowId, executionId: ctx.executionId, nodeId: ctx.nodeId },
        { channel, recipient, text, webhookUrl },
      );
      if (sent.delivery === 'failed') throw new NodeError(`The message was kept in the outbox, but the webhook failed after ${sent.attempts} attempts: ${sent.error ?? 'unknown error'}`);
      output.push({ json: { ...ctx.items[index].json, message: { id: sent.id, channel, recipient, text, delivery: sent.delivery } } });
    }
    return { output };
  },
});
