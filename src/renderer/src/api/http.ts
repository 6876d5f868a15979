import type { Session } from '../session.ts';

/** An API error in the contract's shape: `error` is for people, `code` and `status` for branching. */
export class ApiRequestError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(status: number, message: string, code?: string, details?: Record<string, unknown>) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }

  /** `details.fieldErrors` of a 400, keyed by field name. */
  get fieldErrors(): Record<string, string[]> {
    const fieldErrors = this.details?.fieldErrors;
    return fieldErrors && typeof fieldErrors === 'object' ? (fieldErrors as Record<string, string[]>) : {};
  }
}

let current: Session = { apiBaseUrl: '', token: null };

/** The UI uses the same HTTP API that scripts use, with the app's session as its token. */
export function useSessionForApi(session: Session): void {
  current = session;
}

export function currentSession(): Session {
  return current;
}

function authHeaders(): Record<string, string> {
  return { Authorization: `Bearer ${current.token ?? ''}` };
}

export async function apiRequest<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(current.apiBaseUrl + path, {
      method,
      headers: { ...authHeaders(), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiRequestError(0, 'Hearth is not reachable. Is the engine still running?', 'NETWORK');
  }
  const payload = (await response.json().catch(() => ({}))) as { error?: string; code?: string; details?: Record<string, unknown> };
  if (!response.ok) throw new ApiRequestError(response.status, payload.error ?? response.statusText, payload.code, payload.details);
  return payload as T;
}

/** Fetches a file with the session's token and hands it to the browser as a download. */
export async function downloadFile(path: string, fileName: string): Promise<void> {
  const response = await fetch(current.apiBaseUrl + path, { headers: authHeaders() });
  if (!response.ok) {
    const payload = (await response.json().catch(() => ({}))) as { error?: string; code?: string };
    throw new ApiRequestError(response.status, payload.error ?? response.statusText, payload.code);
  }
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function queryString(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
