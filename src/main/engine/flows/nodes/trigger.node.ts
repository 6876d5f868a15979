import { z } from 'zod';
import type { Item, Json } from '../flows.types.ts';
import { defineNode, jsonObjectSchema } from './node.types.ts';

const configSchema = z.strictObject({
  sampleData: z
    .union([jsonObjectSchema, z.array(jsonObjectSchema).max(1000)])
    .default({})
    .describe('What the trigger emits when the flow is run: one object (one item) or a list of objects (one item each).'),
});

export function toItems(data: Json | Json[]): Item[] {
  // A copy, so nodes downstream can never change the stored config.
  const list = Array.isArray(data) ? data : [data];
  return list.map((json) => ({ json: structuredClone(json) }));
}

export const triggerNode = defineNode({
  type: 'trigger',
  label: 'Manual trigger',
  category: 'trigger',
  description: 'Starts the flow when it is executed by hand (POST execute, the Run button) and emits its sample data.',
  pins: { input: false, output: true },
  isStart: true,
  configSchema,
  spendsCredits: () => false,
  run: (ctx) => ({ output: ctx.seed ?? toItems(ctx.config.sampleData) }),
});
