import { z } from 'zod';
import { defineNode } from './node.types.ts';

const DEFAULT_SAMPLE = { from: '+15550100', text: 'Hello! What are your opening hours?' };

const configSchema = z.strictObject({
  channel: z.string().max(100).default('').describe('Fire only for messages on this channel (e.g. "whatsapp", "local"); empty fires for every channel.'),
  sampleMessage: z
    .strictObject({ from: z.string().max(500), text: z.string().max(10_000) })
    .default(DEFAULT_SAMPLE)
    .describe('The message the trigger emits on a manual run or a node test.'),
});

export const messagingTriggerNode = defineNode({
  type: 'messagingTrigger',
  label: 'Message received',
  category: 'trigger',
  description:
    'Starts the flow when a message arrives (POST /messaging/inbound or `hearth message send`), only while the flow is active. ' +
    'Emits one item { channel, from, text, receivedAt, ... }. A manual run emits the sample message.',
  pins: { input: false, output: true },
  isStart: true,
  configSchema,
  spendsCredits: () => false,
  run: (ctx) => ({
    output: ctx.seed ?? [
      { json: { channel: ctx.config.channel || 'local', from: ctx.config.sampleMessage.from, text: ctx.config.sampleMessage.text, receivedAt: new Date().toISOString(), sample: true } },
    ],
  }),
});
