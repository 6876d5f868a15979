import { z } from 'zod';
import type { Json } from '../flows.types.ts';
import { readPath } from '../merge-fields.ts';
import { defineNode } from './node.types.ts';
import { setPath } from './paths.ts';

const configSchema = z.strictObject({
  fields: z.array(z.string().min(1).max(500)).max(100).default([]).describe('Keep only these fields (dotted paths) in the result; empty keeps every field.'),
});

export const outputNode = defineNode({
  type: 'output',
  label: 'Output',
  category: 'output',
  description: 'The result of the flow: passes its items through, optionally keeping only some fields. Has no output pin.',
  pins: { input: true, output: false },
  configSchema,
  spendsCredits: () => false,
  run: ({ items, config }) => {
    if (config.fields.length === 0) return { output: items };
    return {
      output: items.map((item) => {
        let json: Json = {};
        for (const path of config.fields) {
          const value = readPath(item.json, path);
          if (value !== undefined) json = setPath(json, path, value);
        }
        return { json };
      }),
    };
  },
});
