/**
 * Why this exists: tests speak to the gateway over real HTTP like any
 * producer. This is fetch with the bearer header and JSON handled, returning
 * the status and parsed body so a test can assert on both.
 */
export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

export function apiClient(baseUrl: string, token?: string) {
  return async function api<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const init: RequestInit = { method, headers: { ...headers } };
    if (token) (init.headers as Record<string, string>).authorization = `Bearer ${token}`;
    if (body !== undefined) {
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const response = await fetch(`${baseUrl}${path}`, init);
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: keep the text.
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  };
}
