import { OutboundUrlError, resolveOutboundUrl, type LookupAll } from './outbound-url';
import { createPinnedFetch } from './node-fetch';

/**
 * Mattermost's REST v4 and incoming webhooks, called directly (decision 0030):
 * `@mattermost/client` fetches through the global `fetch` (no way to pin the
 * checked address) and its errors drop the response headers (`Retry-After`).
 */

/** A button of an interactive message attachment, as the server (not the web app) sees it. */
export interface MattermostAction {
  id: string;
  name: string;
  type?: 'button';
  style?: 'default' | 'primary' | 'success' | 'good' | 'warning' | 'danger';
  integration: { url: string; context: Record<string, unknown> };
}

/** An interactive message attachment (the fields we use). */
export interface MattermostAttachment {
  fallback?: string;
  color?: string;
  title?: string;
  text?: string;
  fields?: Array<{ title: string; value: string; short?: boolean }>;
  footer?: string;
  actions?: MattermostAction[];
}

/** A post to create. */
export interface MattermostPostInput {
  channel_id: string;
  message: string;
  props?: { attachments?: MattermostAttachment[] };
  /**
   * Mattermost answers a create with the same pending id within its dedupe
   * window with the post it already made: what makes a retried delivery post once.
   */
  pending_post_id?: string;
}

/** Where to post: the workspace's connection with its secret opened. */
export type MattermostTarget = { type: 'bot'; serverUrl: string; token: string } | { type: 'webhook'; url: string };

/** Mattermost's answer, as a delivery decides on it. */
export type MattermostAnswer =
  | { ok: true; status: number; postId: string | null }
  | {
      ok: false;
      /** Null when the server could not be reached (or the URL was refused). */
      status: number | null;
      /** From `Retry-After` (a 429 or 503). */
      retryAfterMs?: number;
      /** False when trying again cannot help (4xx other than 408/429, a refused URL). */
      retriable: boolean;
      message: string;
    };

/** Options of MattermostRest. */
export interface MattermostRestOptions {
  /** Let private and loopback addresses through (local development, tests). @defaultValue false */
  allowPrivate?: boolean;
  /** Hosts let through whatever they resolve to. @defaultValue [] */
  allowedHosts?: readonly string[];
  /** Per request. @defaultValue 10000 */
  timeoutMs?: number;
  /** DNS, for tests. */
  lookup?: LookupAll;
}

/** Mattermost calls over connections pinned to the checked address. */
export class MattermostRest {
  constructor(private readonly options: MattermostRestOptions = {}) {}

  /** `POST /api/v4/posts` (bot) or the webhook; the post id is null for webhooks. */
  createPost(target: MattermostTarget, post: MattermostPostInput): Promise<MattermostAnswer> {
    if (target.type === 'webhook') {
      // A webhook posts to its own channel unless told another by name; it answers "ok", not a post.
      return this.call(target.url, 'POST', undefined, { text: post.message, props: post.props });
    }
    return this.call(apiUrl(target.serverUrl, '/api/v4/posts'), 'POST', target.token, post);
  }

  /**
   * `POST /api/v4/posts/ephemeral`: a post only `userId` sees, in the channel
   * (bot; not stored by Mattermost, not readable by anyone else through its API).
   */
  createEphemeralPost(target: Extract<MattermostTarget, { type: 'bot' }>, userId: string, post: MattermostPostInput): Promise<MattermostAnswer> {
    return this.call(apiUrl(target.serverUrl, '/api/v4/posts/ephemeral'), 'POST', target.token, { user_id: userId, post });
  }

  /** `PUT /api/v4/posts/{id}/patch`: replaces the message and props of a post the bot made. */
  patchPost(target: Extract<MattermostTarget, { type: 'bot' }>, postId: string, patch: { message?: string; props?: MattermostPostInput['props'] }): Promise<MattermostAnswer> {
    return this.call(apiUrl(target.serverUrl, `/api/v4/posts/${encodeURIComponent(postId)}/patch`), 'PUT', target.token, patch);
  }

  private async call(url: string, method: string, token: string | undefined, body: unknown): Promise<MattermostAnswer> {
    let resolved;
    try {
      resolved = await resolveOutboundUrl(url, { allowPrivate: this.options.allowPrivate, allowedHosts: this.options.allowedHosts, lookup: this.options.lookup });
    } catch (error) {
      if (error instanceof OutboundUrlError) return { ok: false, status: null, retriable: error.code === 'url_unresolvable', message: error.message };
      throw error;
    }
    const pinned = createPinnedFetch(resolved);
    try {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
      if (token) headers.authorization = `Bearer ${token}`;
      const response = await pinned.fetch(resolved.url, { method, headers, body: JSON.stringify(body), signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000) });
      const text = await response.text();
      return answerOf(response, text);
    } catch (error) {
      return { ok: false, status: null, retriable: true, message: `Mattermost could not be reached: ${(error as Error).message}` };
    } finally {
      pinned.close();
    }
  }
}

function apiUrl(serverUrl: string, path: string): string {
  return `${serverUrl.replace(/\/+$/, '')}${path}`;
}

function answerOf(response: Response, text: string): MattermostAnswer {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const fields = (json && typeof json === 'object' ? json : {}) as { id?: unknown; message?: unknown };
  if (response.ok) return { ok: true, status: response.status, postId: typeof fields.id === 'string' ? fields.id : null };
  const status = response.status;
  const message = typeof fields.message === 'string' ? fields.message : text.slice(0, 500) || response.statusText;
  const retryAfterMs = retryAfterOf(response.headers.get('retry-after'));
  const retriable = status >= 500 || status === 408 || status === 429;
  return { ok: false, status, retriable, message, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds from now (capped at an hour). */
export function retryAfterOf(header: string | null): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(0, Math.round(ms)), 3_600_000);
}
