import { z } from 'zod';
import { BaseEnvSchema, envBoolean, loadConfig, SecretsEnvSchema } from '@switchyard/config';
import { AgentModelSchema, MAX_UI_SESSION_TTL_SECONDS, ScriptStepSchema, SsoRoleMapSchema } from '@switchyard/contracts';

export const GatewayEnvSchema = BaseEnvSchema.extend({
  /** The public HTTP port: the API, `/mcp`, `/healthz` and `/readyz` (not `/metrics`). */
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Port of the gateway's /healthz, /readyz and /metrics (not public); 0 picks a free one. @defaultValue 9100 */
  GATEWAY_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(9100),
  /** Requests per second allowed per token (fixed one-second window in Redis). */
  RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).default(2000),
  /** Largest request body accepted, in bytes. */
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  /** How long a resolved token is cached in memory; a revocation reaches other replicas within this. */
  TOKEN_CACHE_MS: z.coerce.number().int().min(0).default(5_000),
  /** Manual runs started with an agent token at this causation depth or deeper are refused (the matcher's setting of the same name). @defaultValue 5 */
  MAX_CAUSATION_DEPTH: z.coerce.number().int().min(0).max(100).default(5),
  /** Lifetime of a single-use SSE stream ticket. */
  STREAM_TICKET_TTL_MS: z.coerce.number().int().min(1000).max(60_000).default(30_000),
  /**
   * How often the token behind each open SSE stream is looked up again in
   * PostgreSQL (not the cache): a stream of a revoked token, or of an agent
   * token whose run ended, is closed within this on every replica. @defaultValue 2000
   */
  STREAM_AUTH_RECHECK_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  /** How long a web UI sign-in lasts, in seconds (never past its API token's expiry; decision 0029). @defaultValue 43200 */
  UI_SESSION_TTL_SECONDS: z.coerce.number().int().min(60).max(MAX_UI_SESSION_TTL_SECONDS).default(43_200),
  /**
   * The externally reachable base URL of the gateway (e.g. `https://switchyard.example.com`),
   * used in the links it makes: invitations and sign-in links (decision 0042). Unset: the
   * gateway's own URL as the request that made the link reached it. @defaultValue none
   */
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * Single sign-on (decision 0042): the OpenID Connect provider's issuer URL (discovered at
   * `/.well-known/openid-configuration`). Unset: no single sign-on. With it, OIDC_CLIENT_ID,
   * OIDC_CLIENT_SECRET, OIDC_WORKSPACE and OIDC_ROLE_MAP are required. @defaultValue none
   */
  OIDC_ISSUER: z.url({ protocol: /^https?$/ }).optional(),
  /** The client id the provider registered for this gateway (redirect URI: PUBLIC_URL + `/v1/sso/callback`). @defaultValue none */
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  /** That client's secret (client_secret_basic). @defaultValue none */
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  /** The workspace (slug) single sign-on signs people in to. @defaultValue none */
  OIDC_WORKSPACE: z.string().min(1).optional(),
  /** `group=role` pairs, comma-separated (`sy-admins=admin,developers=member`): the highest role of a person's groups; none: refused. @defaultValue none */
  OIDC_ROLE_MAP: SsoRoleMapSchema.optional(),
  /** The claim of the ID token (or userinfo) that lists a person's groups. @defaultValue groups */
  OIDC_GROUPS_CLAIM: z.string().min(1).default('groups'),
  /** Scopes asked for (space-separated); include the one that releases the groups claim. @defaultValue openid profile groups */
  OIDC_SCOPES: z.string().min(1).default('openid profile groups'),
  /** Allow an `http:` issuer (a local provider in development and tests); never in production. @defaultValue false */
  OIDC_ALLOW_HTTP: envBoolean.default(false),
  /** How long a peer note's content is kept after it was received (its observation, hash and metadata stay). @defaultValue 604800000 (7 days) */
  AGENT_MESSAGE_CONTENT_RETENTION_MS: z.coerce.number().int().min(60_000).default(7 * 24 * 3_600_000),
  /** How often an open agent-message stream looks in PostgreSQL for new observations. @defaultValue 100 */
  AGENT_MESSAGE_STREAM_POLL_MS: z.coerce.number().int().min(10).max(10_000).default(100),
  /** Interval of SSE heartbeat comments. */
  SSE_HEARTBEAT_MS: z.coerce.number().int().min(100).default(15_000),
  /** `facts` is trimmed to about this many entries where the gateway publishes the facts of its own changes (the event-log's setting of the same name). @defaultValue 1000000 */
  FACTS_MAXLEN: z.coerce.number().int().min(1000).default(1_000_000),
  /** How long Redis remembers an idempotencyKey → id (PostgreSQL remembers for ever). */
  IDEMPOTENCY_TTL_SECONDS: z.coerce.number().int().min(60).default(86_400),
  /**
   * Host names (no port, comma-separated) the `Host` header of a `/mcp` request
   * may carry; any other is refused (DNS-rebinding protection). Put the public
   * name here when the gateway is reached by one.
   */
  GATEWAY_MCP_ALLOWED_HOSTS: z
    .string()
    .default('localhost,127.0.0.1,[::1],gateway')
    .transform((text) => text.split(',').map((host) => host.trim().toLowerCase()).filter((host) => host.length > 0))
    .refine((hosts) => hosts.length > 0, 'at least one host name'),
  /**
   * The instance operator's token for the BullMQ dashboard at `/admin/queues`
   * (Bearer, or HTTP Basic with it as password); at least 32 characters.
   * Unset: the dashboard is not served (decision 0033). @defaultValue none
   */
  GATEWAY_ADMIN_TOKEN: z.string().min(32, 'at least 32 characters').optional(),
  /** Let Mattermost URLs on private and loopback addresses through (never metadata ones); the notifier's setting of the same name. @defaultValue false */
  NOTIFICATIONS_ALLOW_PRIVATE: envBoolean.default(false),
  /** Host names (comma-separated) Mattermost URLs may use whatever they resolve to. @defaultValue none */
  NOTIFICATIONS_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((text) => text.split(',').map((host) => host.trim().toLowerCase()).filter((host) => host.length > 0)),
  /**
   * Let admins configure inbound webhooks with verifier `none` (no signature:
   * anyone who knows the URL can record facts through them); without it such
   * a PUT answers 403 and an existing one's deliveries are refused. @defaultValue false
   */
  WEBHOOK_ALLOW_UNSIGNED: envBoolean.default(false),
  /**
   * Conversational crafting (decision 0056): the built-in crafting agent's model, JSON as an agent
   * spec's `model` (`{"provider":"openai","name":"gpt-4.1-mini","baseUrl":…,"apiKeySecret":…}`; the
   * runner calls it). Used when a workspace's crafting agent is created (its first crafting message);
   * after that the agent's own spec rules. Unset: `POST /agents/craft` answers 409 CRAFTING_NOT_CONFIGURED. @defaultValue none
   */
  CRAFT_MODEL: z
    .string()
    .optional()
    .transform((value) => (value ? (JSON.parse(value) as unknown) : undefined))
    .pipe(AgentModelSchema.optional()),
  /** The crafting agent's script when CRAFT_MODEL's provider is `scripted` (tests, demos): JSON, an agent spec's `script`. @defaultValue none */
  CRAFT_SCRIPT: z
    .string()
    .optional()
    .transform((value) => (value ? (JSON.parse(value) as unknown) : undefined))
    .pipe(z.array(ScriptStepSchema).max(50).optional()),
  /**
   * A crafting answer reads its turn's transcript when the runner announces a flush or the ending (Redis
   * PUBLISH, decision 0056); this is how often it reads anyway, the safety net for a lost announcement. @defaultValue 1000
   */
  CRAFT_STREAM_POLL_MS: z.coerce.number().int().min(5).max(60_000).default(1_000),
  /**
   * Eval judges (decision 0058): the OpenAI-compatible endpoint (with `/v1`) a case's judge model
   * answers at. Unset: an eval of a suite with a judge answers 409 EVAL_JUDGE_NOT_CONFIGURED. @defaultValue none
   */
  EVAL_JUDGE_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** The key sent to EVAL_JUDGE_BASE_URL as a bearer token; empty: none. @defaultValue none */
  EVAL_JUDGE_API_KEY: z
    .string()
    .optional()
    .transform((value) => (value === '' ? undefined : value)),
  /** Longest wait for one judge answer. @defaultValue 60000 */
  EVAL_JUDGE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
  /** Judge models' prices, JSON `{model: {input, output}}` in USD per million tokens; a model absent costs 0 (unpriced). @defaultValue {} */
  EVAL_JUDGE_PRICES: z
    .string()
    .default('{}')
    .transform((value) => JSON.parse(value) as unknown)
    .pipe(z.record(z.string(), z.strictObject({ input: z.number().min(0), output: z.number().min(0) }))),
  /** Deliveries per second accepted per inbound webhook (counted before verification, like a token's requests). @defaultValue 50 */
  WEBHOOK_RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).default(50),
})
  // SECRETS_KEY, SECRETS_KEY_PREVIOUS: without a key the secrets and webhooks routes answer 503.
  .extend(SecretsEnvSchema.shape);
export type GatewayConfig = z.infer<typeof GatewayEnvSchema>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig(GatewayEnvSchema, env);
}
