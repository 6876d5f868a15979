import { z } from 'zod';
import type { Item } from '../flows.types.ts';
import { asText, readPath, renderString, type MergeScope } from '../merge-fields.ts';
import { defineNode, scopeFor } from './node.types.ts';

export const CONDITION_OPERATORS = [
  'exists',
  'notExists',
  'isEmpty',
  'isNotEmpty',
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'startsWith',
  'endsWith',
  'matchesRegex',
  'gt',
  'gte',
  'lt',
  'lte',
  'isTrue',
  'isFalse',
] as const;
type Operator = (typeof CONDITION_OPERATORS)[number];

const NEEDS_VALUE: ReadonlySet<Operator> = new Set(['equals', 'notEquals', 'contains', 'notContains', 'startsWith', 'endsWith', 'matchesRegex', 'gt', 'gte', 'lt', 'lte']);

const conditionSchema = z
  .strictObject({
    field: z.string().min(1).max(500).describe('Dotted path of the item field to test, e.g. "text" or "response.status".'),
    operator: z.enum(CONDITION_OPERATORS),
    value: z
      .union([z.string().max(10_000), z.number(), z.boolean(), z.null()])
      .optional()
      .describe('What to compare with (merge fields allowed). A number compares numerically, a boolean as a boolean, text as text.'),
  })
  .superRefine((c, ctx) => {
    if (NEEDS_VALUE.has(c.operator) && c.value === undefined) ctx.addIssue({ code: 'custom', path: ['value'], message: `Operator ${c.operator} needs a value` });
    if (c.operator === 'matchesRegex' && typeof c.value === 'string' && !c.value.includes('{{')) {
      try {
        new RegExp(c.value);
      } catch {
        ctx.addIssue({ code: 'custom', path: ['value'], message: 'Not a valid regular expression' });
      }
    }
  });

const configSchema = z.strictObject({
  combine: z.enum(['all', 'any']).default('all').describe('all: every condition must hold; any: at least one.'),
  ignoreCase: z.boolean().default(false).describe('Compare text without regard to case.'),
  conditions: z.array(conditionSchema).max(50).default([]).describe('With no conditions, all is true and any is false.'),
});
type Condition = z.output<typeof conditionSchema>;

function isEmptyValue(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v).length === 0;
  return false;
}

function asBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 1 || v === '1') return true;
  if (v === 'false' || v === 0 || v === '0') return false;
  return undefined;
}

function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return Number.NaN;
}

function evaluate(condition: Condition, item: Item, scope: MergeScope, ignoreCase: boolean): boolean {
  const actual = readPath(item.json, condition.field);
  const expected = typeof condition.value === 'string' ? renderString(condition.value, scope) : condition.value;
  const text = (v: unknown): string => (ignoreCase ? asText(v).toLowerCase() : asText(v));
  switch (condition.operator) {
    case 'exists':
      return actual !== undefined && actual !== null;
    case 'notExists':
      return actual === undefined || actual === null;
    case 'isEmpty':
      return isEmptyValue(actual);
    case 'isNotEmpty':
      return !isEmptyValue(actual);
    case 'isTrue':
      return asBoolean(actual) === true;
    case 'isFalse':
      return asBoolean(actual) === false;
    case 'equals':
    case 'notEquals': {
      let same: boolean;
      if (typeof expected === 'number') same = toNumber(actual) === expected;
      else if (typeof expected === 'boolean') same = asBoolean(actual) === expected;
      else if (expected === null) same = actual === null || actual === undefined;
      else same = text(actual) === text(expected);
      return condition.operator === 'equals' ? same : !same;
    }
    case 'contains':
    case 'notContains': {
      const found = Array.isArray(actual) ? actual.some((v) => text(v) === text(expected)) : text(actual).includes(text(expected));
      return condition.operator === 'contains' ? found : !found;
    }
    case 'startsWith':
      return text(actual).startsWith(text(expected));
    case 'endsWith':
      return text(actual).endsWith(text(expected));
    case 'matchesRegex':
      try {
        return new RegExp(asText(expected), ignoreCase ? 'i' : '').test(asText(actual));
      } catch {
        return false;
      }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const a = toNumber(actual);
      const b = toNumber(expected);
      if (Number.isNaN(a) || Number.isNaN(b)) return false;
      return condition.operator === 'gt' ? a > b : condition.operator === 'gte' ? a >= b : condition.operator === 'lt' ? a < b : a <= b;
    }
  }
}

export const conditionNode = defineNode({
  type: 'condition',
  label: 'If',
  category: 'logic',
  description: 'Routes each item to its true or its false output by testing item fields. Edges leaving it name the output in sourceHandle (default true).',
  pins: { input: true, output: true },
  outputs: [{ id: 'true' }, { id: 'false' }],
  configSchema,
  spendsCredits: () => false,
  run: (ctx) => {
    const { combine, conditions, ignoreCase } = ctx.config;
    const yes: Item[] = [];
    const no: Item[] = [];
    ctx.items.forEach((item, index) => {
      const scope = scopeFor(ctx, index);
      const passed = combine === 'all' ? conditions.every((c) => evaluate(c, item, scope, ignoreCase)) : conditions.some((c) => evaluate(c, item, scope, ignoreCase));
      (passed ? yes : no).push(item);
    });
    return { outputs: [yes, no] };
  },
});
