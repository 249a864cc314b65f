import { hostname } from 'node:os';
import { z } from 'zod';
import { BaseEnvSchema, loadConfig, SecretsEnvSchema } from '@switchyard/config';
import { MAX_RUN_DURATION_MS, MIN_RUN_DURATION_MS } from '@switchyard/contracts';
import { ModelEnvSchema } from './model/model-config';
import { MAX_RUNNER_CONCURRENCY } from './runner-capacity';
import { ToolsEnvSchema } from './tools/tools-config';

/** Environment of the runner. */
export const RunnerEnvSchema = BaseEnvSchema.extend({
  /** Port of /healthz, /readyz and /metrics; 0 picks a free one. @defaultValue 9103 */
  RUNNER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(9103),
  /** This process's name in logs and on its Redis connections. */
  RUNNER_NAME: z.string().min(1).default(`${hostname()}-${process.pid}`),
  /**
   * Runs one process holds in flight at once (executing, most of them waiting on a model or a tool).
   * At this many it claims nothing more and fetches no activation job: another runner takes the work
   * (decision 0053). @defaultValue sized from the machine (runnerCapacity: the heap and memory at
   * 256 KiB a run, 100 to 10,000)
   */
  RUNNER_CONCURRENCY: z.coerce.number().int().min(1).max(MAX_RUNNER_CONCURRENCY).optional(),
  /**
   * How far V8's old generation may grow past what its last full collection found live, in percent
   * (the runs' garbage outlives the young generation: decision 0053); 0 keeps V8's own factor (up
   * to 300 %). @defaultValue 50
   */
  RUNNER_HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(300).default(50),
  /** Activation jobs one process handles at once (each is one claim, not a run). @defaultValue 32 */
  RUNNER_CLAIM_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(32),
  /**
   * Connections this process opens to one model host at most (an undici pool per host, shared by every
   * run; HTTP/2 where the provider offers it): a call beyond them waits for a free one.
   * @defaultValue the run capacity (RUNNER_CONCURRENCY)
   */
  RUNNER_MODEL_CONNECTIONS: z.coerce.number().int().min(1).max(MAX_RUNNER_CONCURRENCY).optional(),
  /**
   * How long a statement waits for a connection of the runner's pool before it fails: with thousands
   * of runs in flight, a burst of their statements queues for DATABASE_POOL_MAX connections, and a
   * wait is not a failure. @defaultValue 60000
   */
  RUNNER_DATABASE_WAIT_MS: z.coerce.number().int().min(1000).max(600_000).default(60_000),
  /** How long a run's lease lasts without renewal; renewed every third of it while the run executes; once it lapsed the run goes back in line and another runner continues it (decision 0051). @defaultValue 30000 */
  RUNNER_LEASE_MS: z.coerce.number().int().min(300).default(30_000),
  /** BullMQ job lock (a job lasts one claim); a job whose runner died is moved back to wait after this. @defaultValue 30000 */
  RUNNER_LOCK_DURATION_MS: z.coerce.number().int().min(300).default(30_000),
  /** How often BullMQ looks for stalled jobs. @defaultValue 30000 */
  RUNNER_STALLED_INTERVAL_MS: z.coerce.number().int().min(100).default(30_000),
  /** Stalls before BullMQ fails a job; high, since the run ledger (not the job) decides what happened. @defaultValue 10 */
  RUNNER_MAX_STALLED_COUNT: z.coerce.number().int().min(1).default(10),
  /**
   * How often this process claims the lanes with lapsed leases (a runner
   * died) or queued runs older than 5 s (their job was lost): one indexed
   * query when there is nothing to do. @defaultValue 5000
   */
  RUNNER_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).default(5_000),
  /**
   * The wall-clock limit of a run whose agent sets no `budget.maxDurationMs`, in ms of running
   * time (parked time not counted); a run past it fails `duration_exceeded` (decision 0050).
   * @defaultValue unset (no limit)
   */
  RUNNER_MAX_RUN_DURATION_MS: z.coerce.number().int().min(MIN_RUN_DURATION_MS).max(MAX_RUN_DURATION_MS).optional(),
  /** How long a SIGTERM waits for active runs before the process exits anyway. @defaultValue 10000 */
  RUNNER_CLOSE_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  /**
   * The gateway's `/mcp` endpoint, where runs call the platform's own tools
   * with their agent token. Trusted (operator configuration).
   * @defaultValue http://127.0.0.1:8080/mcp
   */
  PLATFORM_MCP_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8080/mcp'),
  /**
   * Lifetime of a run's agent token if the run never revokes it (its runner
   * died); a run that ends revokes it at once. @defaultValue 7200000 (2 hours)
   */
  AGENT_TOKEN_TTL_MS: z.coerce.number().int().min(60_000).default(7_200_000),
})
  .extend(ModelEnvSchema.shape)
  .extend(ToolsEnvSchema.shape)
  .extend(SecretsEnvSchema.shape);
export type RunnerConfig = z.infer<typeof RunnerEnvSchema>;

/** Parses the runner's environment; throws CONFIG_INVALID naming every bad variable. */
export function loadRunnerConfig(env: NodeJS.ProcessEnv = process.env): RunnerConfig {
  return loadConfig(RunnerEnvSchema, env);
}
