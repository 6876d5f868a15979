/**
 * Errors that are the caller's fault carry the contract's status and code.
 * Anything else that escapes a handler is a bug: answered 500, logged with its stack.
 */
export type ErrorCode = 'BAD_REQUEST' | 'UNAUTHORIZED' | 'INSUFFICIENT_SCOPE' | 'INSUFFICIENT_CREDITS' | 'FORBIDDEN' | 'NOT_FOUND' | 'INTERNAL';

export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(status: number, code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export function badRequest(message: string, fieldErrors?: FieldErrors, extra?: Record<string, unknown>): ApiError {
  const details = fieldErrors || extra ? { ...extra, ...(fieldErrors ? { fieldErrors } : {}) } : undefined;
  return new ApiError(400, 'BAD_REQUEST', message, details);
}

/** A single-field validation failure, so the caller learns which field is wrong. */
export function fieldError(field: string, message: string): ApiError {
  return badRequest(`${field}: ${message}`, { [field]: [message] });
}

export function notFound(what: string): ApiError {
  return new ApiError(404, 'NOT_FOUND', `${what} not found`);
}

export function forbidden(message: string): ApiError {
  return new ApiError(403, 'FORBIDDEN', message);
}

export function unauthorized(message: string): ApiError {
  return new ApiError(401, 'UNAUTHORIZED', message);
}

export function insufficientCredits(balance: number): ApiError {
  return new ApiError(402, 'INSUFFICIENT_CREDITS', 'The workspace has no credits left. Top up with `hearth credits set --balance N`.', { balance });
}
