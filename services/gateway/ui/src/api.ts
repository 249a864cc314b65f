import type { ValidationIssue } from './types';

/** An error answer of the API: its stable code, message and details (zod issues for VALIDATION_FAILED). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The zod issues of a VALIDATION_FAILED answer; empty otherwise. */
  get issues(): ValidationIssue[] {
    return this.code === 'VALIDATION_FAILED' && Array.isArray(this.details) ? (this.details as ValidationIssue[]) : [];
  }
}

/** The session's CSRF token, set at sign-in; every mutating request carries it (decision 0029). */
let csrfToken: string | undefined;

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Called when the API answers 401: the session ended (sign-out elsewhere, expiry, a revoked token). */
let onUnauthenticated: () => void = () => undefined;

export function setOnUnauthenticated(handler: () => void): void {
  onUnauthenticated = handler;
}

/**
 * The one way the UI calls the API: same origin, the session cookie, JSON, and
 * the CSRF header on anything but GET. Errors become ApiError.
 */
export async function api<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { accept: 'application/json', ...headers } };
  const sent = init.headers as Record<string, string>;
  if (method !== 'GET' && csrfToken) sent['x-csrf-token'] = csrfToken;
  if (body !== undefined) {
    sent['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  const parsed: unknown = text ? safeJson(text) : undefined;
  if (!response.ok) {
    const error = (parsed as { error?: { code?: string; message?: string; details?: unknown } } | undefined)?.error;
    if (response.status === 401 && path !== '/v1/session') onUnauthenticated();
    throw new ApiError(response.status, error?.code ?? 'HTTP_' + response.status, error?.message ?? response.statusText, error?.details);
  }
  return parsed as T;
}

/**
 * A POST whose answer is `text/event-stream` (conversational crafting): each
 * event's `data` is parsed and handed to `onEvent` as it arrives. A refusal
 * before the stream starts is thrown as an ApiError, like api()'s.
 */
export async function apiStream(path: string, body: unknown, onEvent: (event: unknown) => void, signal?: AbortSignal): Promise<void> {
  const headers: Record<string, string> = { accept: 'text/event-stream', 'content-type': 'application/json' };
  if (csrfToken) headers['x-csrf-token'] = csrfToken;
  const response = await fetch(path, { method: 'POST', credentials: 'same-origin', headers, body: JSON.stringify(body), signal });
  if (!response.ok || !response.body) {
    const parsed = safeJson(await response.text()) as { error?: { code?: string; message?: string; details?: unknown } } | undefined;
    if (response.status === 401) onUnauthenticated();
    throw new ApiError(response.status, parsed?.error?.code ?? 'HTTP_' + response.status, parsed?.error?.message ?? response.statusText, parsed?.error?.details);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value;
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const frame = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data) onEvent(JSON.parse(data));
    }
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `/v1/workspaces/{ws}` + path. */
export function wsPath(workspace: string, path: string): string {
  return `/v1/workspaces/${encodeURIComponent(workspace)}${path}`;
}

/** An error as a person reads it: the API's code and message. */
export function errorText(error: unknown): string {
  return error instanceof ApiError ? `${error.code}: ${error.message}` : String(error);
}
