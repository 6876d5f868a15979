import type { z } from 'zod';
import { badRequest, type FieldErrors } from '../shared/errors.ts';

/** Maps zod issues to the contract's `fieldErrors`: dotted paths to lists of messages. */
export function toFieldErrors(issues: readonly z.core.$ZodIssue[], root: string): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of issues) {
    const key = issue.path.length ? issue.path.map(String).join('.') : root;
    (out[key] ??= []).push(issue.message);
  }
  return out;
}

export function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, root: 'body' | 'query'): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const fieldErrors = toFieldErrors(result.error.issues, root);
  const first = Object.entries(fieldErrors)[0];
  const message = first ? `Invalid ${root}: ${first[0]}: ${first[1][0]}` : `Invalid ${root}`;
  throw badRequest(message, fieldErrors);
}
