import type { Item } from './flows.types.ts';

/**
 * Merge fields in config text: `{{field}}` reads the incoming item, `{{[nodeN].field}}` reads the
 * output of node N (the item at the same position, else its first item). Paths are dotted and may
 * index arrays (`{{hits.0.answer}}`). A string that is exactly one merge field keeps the value's
 * type (a number stays a number); inside longer text, values are written as text (objects as JSON,
 * missing values as nothing).
 */
const MERGE_FIELD = /\{\{\s*(?:\[([A-Za-z0-9_]+)\]\.?)?\s*([^{}]*?)\s*\}\}/g;
const WHOLE_MERGE_FIELD = /^\{\{\s*(?:\[([A-Za-z0-9_]+)\]\.?)?\s*([^{}]*?)\s*\}\}$/;

export interface MergeScope {
  item: Item | undefined;
  /** Position of the item in the node's input, used to pick the matching item of other nodes. */
  index: number;
  nodeOutputs: ReadonlyMap<string, readonly Item[]>;
}

export const MERGE_FIELD_DOCS = {
  syntax: ['{{field}}', '{{field.sub.path}}', '{{[nodeN].field}}'],
  description:
    '{{field}} is a field of the item the node is processing; {{[nodeN].field}} is a field of node N\'s output ' +
    '(the item at the same position, or its first item). Paths are dotted and may index arrays (hits.0.answer). ' +
    'They work in every text value of a config. A value that is exactly one merge field keeps its type; inside ' +
    'longer text, objects are written as JSON and missing values as empty text.',
  examples: ['Reply to {{from}}: {{text}}', '{{[node2].response.body.title}}', '{{hits.0.answer}}'],
} as const;

export function readPath(value: unknown, path: string): unknown {
  if (path === '') return value;
  let current = value;
  for (const key of path.split('.')) {
    if (current === null || current === undefined || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function lookup(nodeId: string | undefined, path: string, scope: MergeScope): unknown {
  if (nodeId === undefined) return readPath(scope.item?.json, path);
  const items = scope.nodeOutputs.get(nodeId);
  if (!items || items.length === 0) return undefined;
  const item = items[scope.index] ?? items[0];
  return readPath(item.json, path);
}

export function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

export function renderString(text: string, scope: MergeScope): unknown {
  if (!text.includes('{{')) return text;
  const whole = WHOLE_MERGE_FIELD.exec(text);
  if (whole) {
    const value = lookup(whole[1], whole[2], scope);
    return value === undefined ? '' : value;
  }
  return text.replace(MERGE_FIELD, (_m, nodeId: string | undefined, path: string) => asText(lookup(nodeId, path, scope)));
}

/** Merges into text only, whatever the value's type (prompts, URLs, message text). */
export function renderText(text: string, scope: MergeScope): string {
  if (!text.includes('{{')) return text;
  return text.replace(MERGE_FIELD, (_m, nodeId: string | undefined, path: string) => asText(lookup(nodeId, path, scope)));
}

/** Resolves merge fields in every string of a config value, however deep. */
export function renderDeep(value: unknown, scope: MergeScope): unknown {
  if (typeof value === 'string') return renderString(value, scope);
  if (Array.isArray(value)) return value.map((v) => renderDeep(v, scope));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) out[key] = renderDeep(v, scope);
    return out;
  }
  return value;
}

/** True when any string inside holds a merge field, so runners can skip rendering per item. */
export function hasMergeFields(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('{{');
  if (Array.isArray(value)) return value.some(hasMergeFields);
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasMergeFields);
  return false;
}
