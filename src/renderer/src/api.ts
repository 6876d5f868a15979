import type { Session } from './session.ts';

export class ApiRequestError extends Error {
  readonly status: number;
  readonly code: string | undefined;

  constructor(status: number, message: string, code?: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The UI uses the same HTTP API that scripts use. */
export async function apiRequest<T>(session: Session, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(session.apiBaseUrl + path, {
    method,
    headers: { Authorization: `Bearer ${session.token ?? ''}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const payload = (await response.json().catch(() => ({}))) as { error?: string; code?: string };
  if (!response.ok) throw new ApiRequestError(response.status, payload.error ?? response.statusText, payload.code);
  return payload as T;
}
