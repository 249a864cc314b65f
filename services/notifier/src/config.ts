import { hostname } from 'node:os';
import { z } from 'zod';
import { BaseEnvSchema, envBoolean, loadConfig, SecretsEnvSchema } from '@switchyard/config';

/** Host names, comma-separated, blanks ignored. */
const hostList = z
  .string()
  .default('')
  .transform((text) => text.split(',').map((host) => host.trim().toLowerCase()).filter((host) => host.length > 0));

/** Environment of the notifier (decision 0030). */
export const NotifierEnvSchema = BaseEnvSchema.extend({
  /** Port of /healthz, /readyz and /metrics; 0 picks a free one. @defaultValue 9105 */
  NOTIFIER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(9105),
  /** This process's consumer name in the `notifier` group on `facts`. */
  NOTIFIER_CONSUMER: z.string().min(1).default(`${hostname()}-${process.pid}`),
  /**
   * The gateway's `/integrations/mattermost/actions` URL as the Mattermost
   * server reaches it (e.g. `https://switchyard.example.com/integrations/mattermost/actions`).
   * Unset: approval posts carry no Approve/Deny buttons. @defaultValue none
   */
  NOTIFIER_ACTION_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Deliveries in flight at once; a slow or failing channel holds at most its own. @defaultValue 16 */
  NOTIFIER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  /** Attempts of one delivery before it is given up (a 429 does not count). @defaultValue 12 */
  NOTIFIER_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(12),
  /** First retry delay of a failed delivery; doubles per attempt. @defaultValue 1000 */
  NOTIFIER_BACKOFF_MS: z.coerce.number().int().min(10).max(600_000).default(1_000),
  /**
   * How long a delivery's lock lasts before another notifier takes it over
   * (after a crash). Keep it well under Mattermost's 30 s dedupe window of
   * `pending_post_id`, so a post retried after a crash is not made twice. @defaultValue 10000
   */
  NOTIFIER_LOCK_MS: z.coerce.number().int().min(500).max(25_000).default(10_000),
  /** Timeout of one Mattermost request. @defaultValue 10000 */
  NOTIFIER_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Let Mattermost URLs on private and loopback addresses through (never metadata ones). @defaultValue false */
  NOTIFICATIONS_ALLOW_PRIVATE: envBoolean.default(false),
  /** Host names (comma-separated) Mattermost URLs may use whatever they resolve to. @defaultValue none */
  NOTIFICATIONS_ALLOWED_HOSTS: hostList,
  /**
   * Base URL of an OTLP/HTTP collector: every ended run's trace is sent to
   * `<url>/v1/traces` (decision 0057). Unset: no export; `GET /runs/{id}/trace` works either way. @defaultValue none
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  /** Headers of each export, as OpenTelemetry writes them: `key=value` pairs, comma-separated. @defaultValue none */
  OTEL_EXPORTER_OTLP_HEADERS: z
    .string()
    .default('')
    .transform((text, ctx) => {
      const headers: Record<string, string> = {};
      for (const pair of text.split(',').map((part) => part.trim()).filter((part) => part.length > 0)) {
        const at = pair.indexOf('=');
        try {
          if (at <= 0) throw new Error('no key');
          headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
        } catch {
          ctx.addIssue({ code: 'custom', message: 'each header is key=value, percent-encoded' });
          return z.NEVER;
        }
      }
      return headers;
    }),
  /** Pending facts idle this long are taken over from a dead notifier. @defaultValue 30000 */
  CLAIM_IDLE_MS: z.coerce.number().int().min(200).default(30_000),
}).extend(SecretsEnvSchema.shape);
export type NotifierConfig = z.infer<typeof NotifierEnvSchema>;

/** Parses the notifier's environment; throws CONFIG_INVALID naming every bad variable. */
export function loadNotifierConfig(env: NodeJS.ProcessEnv = process.env): NotifierConfig {
  return loadConfig(NotifierEnvSchema, env);
}
