import { Client } from 'pg';
import { GROUPS, STREAMS } from '@switchyard/contracts';
import { createWorkspace, SqlPool } from '@switchyard/db';
import { groupCaughtUp, lastGeneratedId, streamGroupStats } from '@switchyard/redis';
import { waitFor } from './wait-for';
import { createTestDatabase, type TestDatabase } from './test-database';
import { createTestRedis, type TestRedis } from './test-redis';
import { spawnService, type ServiceProcess } from './spawn-service';

/** A gateway and event-log(s) running as processes on a database and Redis prefix of their own. */
export interface TestPlatform {
  db: TestDatabase;
  redis: TestRedis;
  /** The environment the processes run with (DATABASE_URL, REDIS_URL, REDIS_PREFIX, …). */
  env: Record<string, string>;
  gatewayUrl: string;
  /** The gateway's health port (GATEWAY_HEALTH_PORT): `/metrics` is served there, not on the public port. */
  gatewayHealthUrl: string;
  gateway: ServiceProcess;
  eventLogs: ServiceProcess[];
  /** The matcher process, when started (see `startMatcher`). */
  matcher?: ServiceProcess;
  /** The approvals process, when started (see `startApprovals`). */
  approvals?: ServiceProcess;
  /** The runner processes started so far (see `startRunner`). */
  runners: ServiceProcess[];
  /** Starts one more runner process. */
  startRunner(extraEnv?: Record<string, string>): Promise<ServiceProcess>;
  /** Starts a matcher process (again, e.g. after stopping one). */
  startMatcher(extraEnv?: Record<string, string>): Promise<ServiceProcess>;
  /** Starts an approvals process (again, e.g. after stopping one). */
  startApprovals(extraEnv?: Record<string, string>): Promise<ServiceProcess>;
  /** Starts one more event-log process (e.g. after killing one). */
  startEventLog(extraEnv?: Record<string, string>): Promise<ServiceProcess>;
  /** Creates a workspace with the real admin command; returns its admin token. */
  createWorkspace(slug: string): Promise<string>;
  /**
   * How many facts are stored, once the outbox is relayed and `ingest`
   * persisted: the platform writes its own facts with their changes and the
   * event-log's relay moves them a moment later (decision 0024), so a test
   * that checks "nothing more was recorded" would otherwise race the relay.
   */
  factsRecorded(): Promise<number>;
  /**
   * Waits until the platform has nothing on its way: every consumer group on
   * `ingest` and `facts` has read and acknowledged everything, the outbox is
   * empty, and no entry was added to either stream while this looked. A
   * consumer commits what it makes (runs, their facts in the outbox) before it
   * acknowledges, so nothing more comes until something new is posted — the
   * signal a test waits for before it counts, or before it proves an absence.
   */
  settled(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Options of startTestPlatform. */
export interface TestPlatformOptions {
  /** Event-log processes to start. @defaultValue 1 */
  eventLogs?: number;
  /** Extra environment for every process. */
  env?: Record<string, string>;
  /** Also start the matcher. @defaultValue false */
  matcher?: boolean;
  /** Runner processes to start. @defaultValue 0 */
  runners?: number;
  /** Also start the approvals service. @defaultValue false */
  approvals?: boolean;
}

/**
 * Why this exists: the guarantees of issue 2 are end-to-end (HTTP in, row in
 * PostgreSQL, entry on `facts`, event on SSE) and about processes (SIGKILL,
 * two event-logs at once). This starts the real `main.ts` of each service as
 * a child process against a fresh database and Redis prefix.
 */
export async function startTestPlatform(options: TestPlatformOptions = {}): Promise<TestPlatform> {
  const db = await createTestDatabase();
  const redis = await createTestRedis();
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    REDIS_PREFIX: redis.prefix,
    GATEWAY_HEALTH_PORT: '0',
    EVENT_LOG_HEALTH_PORT: '0',
    MATCHER_HEALTH_PORT: '0',
    RUNNER_HEALTH_PORT: '0',
    APPROVALS_HEALTH_PORT: '0',
    CLAIM_IDLE_MS: '1500',
    INGEST_TRIM_INTERVAL_MS: '500',
    PORT: '0',
    // Ops facts (decision 0038) would add platform.* facts to tests that count facts; their own tests turn them on.
    OPS_FACTS_ENABLED: 'false',
    ...options.env,
  };
  const eventLogs: ServiceProcess[] = [];
  let counter = 0;
  const startEventLog = async (extraEnv: Record<string, string> = {}) => {
    const proc = await spawnService('event-log', { ...env, EVENT_LOG_CONSUMER: `el-${counter++}-${Date.now()}`, ...extraEnv });
    eventLogs.push(proc);
    return proc;
  };
  // Set once every first process is up; a process started later updates it.
  const started: { platform?: TestPlatform } = {};
  const matchers: ServiceProcess[] = [];
  const startMatcher = async (extraEnv: Record<string, string> = {}) => {
    const proc = await spawnService('matcher', { ...env, MATCHER_CONSUMER: `m-${matchers.length}-${Date.now()}`, ...extraEnv }, { readyPattern: /matcher started/ });
    matchers.push(proc);
    if (started.platform) started.platform.matcher = proc;
    return proc;
  };
  const approvalsProcs: ServiceProcess[] = [];
  const startApprovals = async (extraEnv: Record<string, string> = {}) => {
    const proc = await spawnService('approvals', { ...env, APPROVALS_CONSUMER: `a-${approvalsProcs.length}-${Date.now()}`, ...extraEnv }, { readyPattern: /approvals started/ });
    approvalsProcs.push(proc);
    if (started.platform) started.platform.approvals = proc;
    return proc;
  };
  const runners: ServiceProcess[] = [];
  let runnerCounter = 0;
  const startRunner = async (extraEnv: Record<string, string> = {}) => {
    const proc = await spawnService('runner', { ...env, RUNNER_NAME: `r-${runnerCounter++}-${Date.now()}`, ...extraEnv }, { readyPattern: /runner started/ });
    runners.push(proc);
    return proc;
  };
  // The services start side by side: each creates the streams and groups it reads.
  const starting = await Promise.allSettled([
    spawnService('gateway', env, { readyPattern: /gateway listening/ }),
    ...Array.from({ length: options.eventLogs ?? 1 }, () => startEventLog()),
    ...(options.matcher ? [startMatcher()] : []),
    ...(options.approvals ? [startApprovals()] : []),
    ...Array.from({ length: options.runners ?? 0 }, () => startRunner()),
  ]);
  const failed = starting.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(starting.map((result) => (result.status === 'fulfilled' ? result.value.stop('SIGKILL') : undefined)));
    await redis.cleanup();
    await db.drop();
    throw failed.reason;
  }
  const gateway = (starting[0] as PromiseFulfilledResult<ServiceProcess>).value;
  const port = /"port":(\d+),"host"[^\n]*gateway listening/.exec(gateway.output())?.[1];
  const healthPort = /"healthPort":(\d+)[^\n]*gateway listening/.exec(gateway.output())?.[1];
  if (!port || !healthPort) throw new Error(`gateway did not report its ports:\n${gateway.output()}`);
  const platform: TestPlatform = {
    db,
    redis,
    env,
    gatewayUrl: `http://127.0.0.1:${port}`,
    gatewayHealthUrl: `http://127.0.0.1:${healthPort}`,
    gateway,
    eventLogs,
    startEventLog,
    startMatcher,
    startApprovals,
    runners,
    startRunner,
    createWorkspace: async (slug) => {
      // In this process, the way the operator's `create-workspace` does it; the command itself has its own test.
      const sql = new SqlPool({ databaseUrl: db.url, poolMax: 1, applicationName: 'test' });
      try {
        return (await createWorkspace(sql, slug)).token;
      } finally {
        await sql.$disconnect();
      }
    },
    factsRecorded: async () => {
      const pg = new Client({ connectionString: db.url });
      await pg.connect();
      try {
        // Settled: the outbox relayed and `ingest` persisted (a fact relayed twice is stored once).
        const ingestKey = `${redis.prefix}:ingest`;
        await waitFor(
          async () =>
            Number((await pg.query('SELECT count(*) FROM fact_outbox')).rows[0].count) === 0 &&
            (await groupCaughtUp(redis.redis, ingestKey, GROUPS.eventLog)),
          { what: 'the outbox relayed and ingest persisted' },
        );
        return Number((await pg.query('SELECT count(*) FROM platform_events')).rows[0].count);
      } finally {
        await pg.end();
      }
    },
    settled: async (timeoutMs = 180_000) => {
      const pg = new Client({ connectionString: db.url });
      await pg.connect();
      const streams = [STREAMS.ingest, STREAMS.facts].map((name) => `${redis.prefix}:${name}`);
      const newestIds = async () => (await Promise.all(streams.map((stream) => lastGeneratedId(redis.redis, stream)))).join(' ');
      const caughtUp = async () => {
        for (const stream of streams) {
          for (const group of await streamGroupStats(redis.redis, stream)) if (!(await groupCaughtUp(redis.redis, stream, group.group))) return false;
        }
        return true;
      };
      try {
        await waitFor(
          async () => {
            const before = await newestIds();
            return (await caughtUp()) && Number((await pg.query('SELECT count(*) FROM fact_outbox')).rows[0].count) === 0 && (await newestIds()) === before;
          },
          { timeoutMs, intervalMs: 100, what: 'the streams drained and the outbox empty' },
        );
      } finally {
        await pg.end();
      }
    },
    stop: async () => {
      await Promise.all([gateway, ...eventLogs, ...matchers, ...approvalsProcs, ...runners].map((proc) => proc.stop('SIGTERM')));
      await redis.cleanup();
      await db.drop();
    },
  };
  platform.matcher = matchers.at(-1);
  platform.approvals = approvalsProcs.at(-1);
  started.platform = platform;
  return platform;
}

/**
 * A new gateway process on the platform's environment (after its first was
 * stopped: a restart), and its base URL. The caller stops it.
 */
export async function startAnotherGateway(platform: Pick<TestPlatform, 'env'>): Promise<{ gateway: ServiceProcess; url: string }> {
  const gateway = await spawnService('gateway', platform.env, { readyPattern: /gateway listening/ });
  const port = /"port":(\d+),"host"[^\n]*gateway listening/.exec(gateway.output())?.[1];
  if (!port) throw new Error(`gateway did not report its port:\n${gateway.output()}`);
  return { gateway, url: `http://127.0.0.1:${port}` };
}
