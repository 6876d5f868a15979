import { z } from 'zod';
import type { Item } from '../flows.types.ts';
import { asText, renderDeep, renderText } from '../merge-fields.ts';
import { defineNode, jsonObjectSchema, NodeError, scopeFor } from './node.types.ts';

const configSchema = z.strictObject({
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']).default('GET'),
  url: z.string().max(8000).default('').describe('http:// or https:// URL; merge fields allowed.'),
  headers: z.record(z.string(), z.string().max(8000)).default({}),
  query: z.record(z.string(), z.string().max(8000)).default({}).describe('Query parameters added to the URL.'),
  body: z
    .union([z.string().max(1_000_000), jsonObjectSchema, z.array(z.unknown()), z.null()])
    .default(null)
    .describe('Text is sent as is; an object or list is sent as JSON. Merge fields allowed in every text value. Ignored for GET and HEAD.'),
  timeoutMs: z.number().int().min(1).max(300_000).default(30_000),
  responseFormat: z.enum(['auto', 'json', 'text']).default('auto').describe('auto reads JSON when the response says it is JSON, text otherwise.'),
});

const ERROR_BODY_EXCERPT = 300;

export const httpRequestNode = defineNode({
  type: 'httpRequest',
  label: 'HTTP request',
  category: 'integration',
  description:
    'Calls a URL once per item and adds { response: { status, headers, body } } to it. Network failures, timeouts and ' +
    'non-2xx answers make the node fail.',
  pins: { input: true, output: true },
  configSchema,
  spendsCredits: () => false,
  run: async (ctx) => {
    const output: Item[] = [];
    for (let index = 0; index < ctx.items.length; index++) {
      const scope = scopeFor(ctx, index);
      const config = ctx.config;
      let url: URL;
      const rawUrl = renderText(config.url, scope).trim();
      try {
        url = new URL(rawUrl);
      } catch {
        throw new NodeError(`URL "${rawUrl}" is not a valid URL.`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new NodeError(`URL "${rawUrl}" must start with http:// or https://.`);
      for (const [key, value] of Object.entries(config.query)) url.searchParams.append(key, renderText(value, scope));
      const headers = new Headers();
      for (const [key, value] of Object.entries(config.headers)) headers.set(key, renderText(value, scope));
      let body: string | undefined;
      if (config.body !== null && config.method !== 'GET' && config.method !== 'HEAD') {
        if (typeof config.body === 'string') {
          body = renderText(config.body, scope);
          if (!headers.has('content-type')) headers.set('content-type', 'text/plain; charset=utf-8');
        } else {
          body = JSON.stringify(renderDeep(config.body, scope));
          if (!headers.has('content-type')) headers.set('content-type', 'application/json');
        }
      }
      let response: Response;
      try {
        response = await fetch(url, { method: config.method, headers, body, signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(config.timeoutMs)]) });
      } catch (error) {
        const reason = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError') ? `no answer within ${config.timeoutMs} ms` : describeFetchError(error);
        throw new NodeError(`${config.method} ${url.href} failed: ${reason}`);
      }
      const text = await response.text();
      if (!response.ok) throw new NodeError(`${config.method} ${url.href} answered ${response.status} ${response.statusText}: ${text.slice(0, ERROR_BODY_EXCERPT)}`);
      const isJson = config.responseFormat === 'json' || (config.responseFormat === 'auto' && /\bjson\b/i.test(response.headers.get('content-type') ?? ''));
      let parsed: unknown = text;
      if (isJson && text !== '') {
        try {
          parsed = JSON.parse(text);
        } catch {
          throw new NodeError(`${config.method} ${url.href} did not answer JSON: ${text.slice(0, ERROR_BODY_EXCERPT)}`);
        }
      }
      output.push({ json: { ...ctx.items[index].json, response: { status: response.status, headers: Object.fromEntries(response.headers), body: parsed } } });
    }
    return { output };
  },
});

function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return asText(error);
  const cause = (error as Error & { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
