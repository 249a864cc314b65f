import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Why this exists: the notifier and the gateway's Mattermost integration must
 * be tested over real HTTP against what a Mattermost server does, not a mock
 * of our client: REST v4 `POST /api/v4/posts` (with its `pending_post_id`
 * dedupe), `PUT /api/v4/posts/{id}/patch`, incoming webhooks, `429` with
 * `Retry-After` and `500`s on demand, and the two calls Mattermost makes to
 * an integration: a button click (POST of `{user_id, post_id, channel_id,
 * team_id, context}` to the action's URL, applying the `update` it answers)
 * and a slash command (form POST with the command's token).
 */

/** A post as the server keeps it. */
export interface LocalMattermostPost {
  id: string;
  channel_id: string;
  message: string;
  props: { attachments?: Array<{ actions?: Array<{ id: string; name: string; integration: { url: string; context: Record<string, unknown> } }>; [key: string]: unknown }>; [key: string]: unknown };
  pending_post_id?: string;
  create_at: number;
  update_at: number;
  /** Set for posts made through an incoming webhook. */
  webhook?: string;
  /** Set for an ephemeral post (`POST /api/v4/posts/ephemeral`): the one user who sees it. */
  ephemeralFor?: string;
}

/** One request the server answered. */
export interface LocalMattermostRequest {
  method: string;
  path: string;
  channelId?: string;
  status: number;
  at: number;
}

/** A scripted failure of the next requests to a channel. */
export interface LocalMattermostFault {
  status: number;
  /** Sent as `Retry-After` (seconds). */
  retryAfterSeconds?: number;
  /** How many requests it answers. @defaultValue 1 */
  times?: number;
}

/** The running server. */
export interface LocalMattermostServer {
  /** The server URL (`http://127.0.0.1:<port>`), what a connection's `serverUrl` is. */
  url: string;
  /** The bot token `POST /api/v4/posts` accepts. */
  botToken: string;
  /** Every post, by id, in creation order. */
  posts: Map<string, LocalMattermostPost>;
  requests: LocalMattermostRequest[];
  /** Posts of one channel (or webhook's channel), oldest first. */
  postsIn(channelId: string): LocalMattermostPost[];
  /** A new channel id (26 lowercase letters and digits, as Mattermost's). */
  newChannelId(): string;
  /** An incoming webhook URL that posts to `channelId`. */
  addWebhook(channelId: string): string;
  /** The next requests to the channel fail as given. */
  fail(channelId: string, fault: LocalMattermostFault): void;
  /** Every request to the channel fails with `status` until heal(). */
  failAlways(channelId: string, status: number): void;
  heal(channelId: string): void;
  /** Posts to the channel are made at once but answered `ms` later (a crash in that window leaves a post its client never heard of). */
  delay(channelId: string, ms: number): void;
  /** The ephemeral posts made for a user, oldest first. */
  ephemeralFor(userId: string): LocalMattermostPost[];
  /** Clicks a button of a post as `user`, as Mattermost does; applies the `update` of a 200 answer. */
  click(postId: string, actionId: string, user: { id: string; name?: string }): Promise<{ status: number; body: unknown }>;
  /** Runs a slash command against `url` as Mattermost does (form body, `Authorization: Token`). */
  slashCommand(url: string, input: { token: string; userId: string; text: string; userName?: string }): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

/** Mattermost keeps a pending post id for this long (its PendingPostIDsCacheTTL). */
const PENDING_POST_TTL_MS = 30_000;

const newId = () => randomBytes(16).toString('hex').slice(0, 26).replace(/[^a-z0-9]/g, 'a');

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts a local server speaking the parts of Mattermost's API the platform uses. */
export async function startLocalMattermostServer(options: { botToken?: string } = {}): Promise<LocalMattermostServer> {
  const botToken = options.botToken ?? `bot-${randomBytes(8).toString('hex')}`;
  const posts = new Map<string, LocalMattermostPost>();
  const pending = new Map<string, { postId: string; until: number }>();
  const webhooks = new Map<string, string>();
  const faults = new Map<string, LocalMattermostFault[]>();
  const broken = new Map<string, number>();
  const delays = new Map<string, number>();
  const requests: LocalMattermostRequest[] = [];

  const faultFor = (channelId: string): LocalMattermostFault | undefined => {
    const always = broken.get(channelId);
    if (always !== undefined) return { status: always };
    const queue = faults.get(channelId);
    const next = queue?.[0];
    if (!next) return undefined;
    next.times = (next.times ?? 1) - 1;
    if (next.times <= 0) queue!.shift();
    return next;
  };

  const answer = (req: IncomingMessage, res: ServerResponse, status: number, body: unknown, channelId?: string, headers: Record<string, string> = {}) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', channelId, status, at: Date.now() });
    sendJson(res, status, body, headers);
  };

  const failWith = (req: IncomingMessage, res: ServerResponse, channelId: string, fault: LocalMattermostFault) => {
    const headers: Record<string, string> = fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) };
    answer(req, res, fault.status, { id: 'local.fault', message: `scripted ${fault.status}`, status_code: fault.status }, channelId, headers);
  };

  const createPost = (input: Partial<LocalMattermostPost>, webhook?: string): LocalMattermostPost => {
    const now = Date.now();
    const post: LocalMattermostPost = { id: newId(), channel_id: input.channel_id!, message: input.message ?? '', props: input.props ?? {}, create_at: now, update_at: now };
    if (input.pending_post_id) post.pending_post_id = input.pending_post_id;
    if (webhook) post.webhook = webhook;
    posts.set(post.id, post);
    return post;
  };

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://local');
      const raw = await readBody(req);
      let body: Record<string, unknown>;
      try {
        body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      } catch {
        return answer(req, res, 400, { id: 'api.context.invalid_body_param.app_error', message: 'invalid JSON', status_code: 400 });
      }
      const hook = /^\/hooks\/([a-z0-9]+)$/.exec(url.pathname);
      if (hook && req.method === 'POST') {
        const channelId = webhooks.get(hook[1]!);
        if (!channelId) return answer(req, res, 404, { message: 'unknown webhook', status_code: 404 });
        const fault = faultFor(channelId);
        if (fault) return failWith(req, res, channelId, fault);
        createPost({ channel_id: channelId, message: String(body.text ?? ''), props: (body.props as LocalMattermostPost['props']) ?? {} }, hook[1]);
        requests.push({ method: 'POST', path: url.pathname, channelId, status: 200, at: Date.now() });
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('ok');
      }
      if (req.headers.authorization !== `Bearer ${botToken}`) {
        return answer(req, res, 401, { id: 'api.context.session_expired.app_error', message: 'Invalid or expired session, please login again.', status_code: 401 });
      }
      if (url.pathname === '/api/v4/posts' && req.method === 'POST') {
        const channelId = String(body.channel_id ?? '');
        if (!/^[a-z0-9]{26}$/.test(channelId)) return answer(req, res, 400, { id: 'model.post.is_valid.channel_id.app_error', message: 'Invalid channel id.', status_code: 400 }, channelId);
        const fault = faultFor(channelId);
        if (fault) return failWith(req, res, channelId, fault);
        const pendingId = typeof body.pending_post_id === 'string' ? body.pending_post_id : undefined;
        const seen = pendingId ? pending.get(pendingId) : undefined;
        if (seen && seen.until > Date.now()) return answer(req, res, 201, posts.get(seen.postId), channelId);
        const post = createPost(body as Partial<LocalMattermostPost>);
        if (pendingId) pending.set(pendingId, { postId: post.id, until: Date.now() + PENDING_POST_TTL_MS });
        const delayMs = delays.get(channelId) ?? 0;
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        return answer(req, res, 201, post, channelId);
      }
      if (url.pathname === '/api/v4/posts/ephemeral' && req.method === 'POST') {
        const userId = String(body.user_id ?? '');
        const input = (body.post ?? {}) as Partial<LocalMattermostPost>;
        const channelId = String(input.channel_id ?? '');
        if (!userId || !/^[a-z0-9]{26}$/.test(channelId)) return answer(req, res, 400, { id: 'api.context.invalid_body_param.app_error', message: 'Invalid user_id or channel_id.', status_code: 400 }, channelId);
        const post = createPost(input);
        post.ephemeralFor = userId;
        return answer(req, res, 201, post, channelId);
      }
      const patch = /^\/api\/v4\/posts\/([a-z0-9]+)\/patch$/.exec(url.pathname);
      if (patch && req.method === 'PUT') {
        const post = posts.get(patch[1]!);
        if (!post) return answer(req, res, 404, { id: 'app.post.get.app_error', message: 'Unable to get the post.', status_code: 404 });
        const fault = faultFor(post.channel_id);
        if (fault) return failWith(req, res, post.channel_id, fault);
        if (typeof body.message === 'string') post.message = body.message;
        if (body.props && typeof body.props === 'object') post.props = body.props as LocalMattermostPost['props'];
        post.update_at = Date.now();
        return answer(req, res, 200, post, post.channel_id);
      }
      const get = /^\/api\/v4\/posts\/([a-z0-9]+)$/.exec(url.pathname);
      if (get && req.method === 'GET') {
        const post = posts.get(get[1]!);
        return post ? answer(req, res, 200, post, post.channel_id) : answer(req, res, 404, { message: 'Unable to get the post.', status_code: 404 });
      }
      return answer(req, res, 404, { id: 'api.context.404.app_error', message: 'Sorry, we could not find the page.', status_code: 404 });
    })().catch((error: unknown) => sendJson(res, 500, { message: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    botToken,
    posts,
    requests,
    postsIn: (channelId) => [...posts.values()].filter((post) => post.channel_id === channelId && post.ephemeralFor === undefined),
    ephemeralFor: (userId) => [...posts.values()].filter((post) => post.ephemeralFor === userId),
    newChannelId: newId,
    addWebhook: (channelId) => {
      const key = randomBytes(10).toString('hex');
      webhooks.set(key, channelId);
      return `${base}/hooks/${key}`;
    },
    fail: (channelId, fault) => faults.set(channelId, [...(faults.get(channelId) ?? []), { ...fault }]),
    failAlways: (channelId, status) => void broken.set(channelId, status),
    heal: (channelId) => void broken.delete(channelId),
    delay: (channelId, ms) => void delays.set(channelId, ms),
    click: async (postId, actionId, user) => {
      const post = posts.get(postId);
      const action = post?.props.attachments?.flatMap((attachment) => attachment.actions ?? []).find((candidate) => candidate.id === actionId);
      if (!post || !action) throw new Error(`post ${postId} has no button ${actionId}`);
      // Mattermost shows an ephemeral post, and so its buttons, to its one user only.
      if (post.ephemeralFor !== undefined && post.ephemeralFor !== user.id) throw new Error(`post ${postId} is not shown to ${user.id}`);
      const response = await fetch(action.integration.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user_id: user.id, user_name: user.name ?? '', channel_id: post.channel_id, team_id: 'team0000000000000000000000', post_id: post.id, trigger_id: newId(), type: 'button', data_source: '', context: action.integration.context }),
      });
      const text = await response.text();
      const parsed: unknown = text ? JSON.parse(text) : null;
      // Mattermost applies an `update` only from a 200 answer.
      const update = response.status === 200 ? (parsed as { update?: { message?: string; props?: LocalMattermostPost['props'] } } | null)?.update : undefined;
      if (update) {
        if (typeof update.message === 'string') post.message = update.message;
        if (update.props) post.props = update.props;
        post.update_at = Date.now();
      }
      return { status: response.status, body: parsed };
    },
    slashCommand: async (url, input) => {
      const form = new URLSearchParams({
        channel_id: newId(),
        channel_name: 'town-square',
        command: '/switchyard',
        response_url: `${base}/hooks/commands/${newId()}`,
        team_domain: 'team',
        team_id: 'team0000000000000000000000',
        text: input.text,
        token: input.token,
        trigger_id: newId(),
        user_id: input.userId,
        user_name: input.userName ?? 'someone',
      });
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Token ${input.token}`, accept: 'application/json' },
        body: form.toString(),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON: the raw text is the answer.
      }
      return { status: response.status, body: parsed };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
