import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { dropDatabase } from '@switchyard/db';
import { closeRedis, createRedis } from '@switchyard/redis';
import { apiClient } from '@switchyard/testing';
import { offerFacts } from './fact-load';
import { planKills } from './kill-plan';
import { runKills, type KillDeps } from './kills';
import { startManualRuns } from './manual-runs';
import { Mesh } from './mesh';
import { meshEnv } from './mesh-env';
import type { ChaosOptions } from './options';
import { chaosDatabaseUrl, migrateDatabase, serverUrl } from './own-database';
import { freePort, OwnRedis, PREFIX } from './own-redis';
import { waitForQuiescence } from './quiescence';
import { formatReport } from './report';
import { MANUAL_RUN_AGENT, SCENARIO_AGENTS } from './scenario';
import { verify } from './verify';
import { checkSchedules, createSchedules, disableSchedules, readScheduleOutcomes, SCHEDULE_WORKSPACE, type ChaosSchedules } from './schedule-checks';

const ROOT = path.resolve(__dirname, '../..');
const WORKSPACE = 'chaos';

/** How long a fact is still retried once the load has ended. */
const RETRY_AFTER_LOAD_MS = 60_000;

/** What the harness started, for the cleanup however it ends. */
export interface ChaosResources {
  mesh?: Mesh;
  redis?: OwnRedis;
  databaseUrl?: string;
}

/** Creates a workspace with the real admin command; returns its admin token. */
async function createWorkspace(env: Record<string, string>, slug = WORKSPACE): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', 'create-workspace', slug], { cwd: ROOT, env: { ...process.env, ...env } });
  const token = stdout.trim().split('\n').at(-1)!;
  if (!token.startsWith('sy_')) throw new Error(`admin did not print a token:\n${stdout}`);
  return token;
}

/** Creates the scenario's agents; returns their ids by name. */
async function createAgents(gatewayUrl: string, token: string): Promise<Map<string, string>> {
  const api = apiClient(gatewayUrl, token);
  const ids = new Map<string, string>();
  for (const agent of SCENARIO_AGENTS) {
    const created = await api<{ id: string }>('POST', `/v1/workspaces/${WORKSPACE}/agents`, agent.spec);
    if (created.status !== 201) throw new Error(`creating agent ${agent.name} answered ${created.status}: ${JSON.stringify(created.body)}`);
    ids.set(agent.name, created.body.id);
  }
  return ids;
}

/** The platform as the harness started it. */
interface StartedPlatform {
  gatewayUrl: string;
  token: string;
  agentIds: Map<string, string>;
  /** The scheduler scenario's schedules and its workspace's token. */
  schedules: { token: string; created: ChaosSchedules };
}

/** Starts Redis, the database, the mesh, the workspace and the agents, recording each in `resources`. */
async function startPlatform(resources: ChaosResources, redisKind: ChaosOptions['redis'], log: (line: string) => void): Promise<StartedPlatform> {
  resources.redis = await OwnRedis.start(redisKind);
  // Recorded before it exists: a migration that fails half-way still leaves it to drop.
  resources.databaseUrl = chaosDatabaseUrl(serverUrl());
  await migrateDatabase(resources.databaseUrl);
  const gatewayPort = await freePort();
  const env = meshEnv({ databaseUrl: resources.databaseUrl, redisUrl: resources.redis.url, redisPrefix: PREFIX, gatewayPort });
  log(`chaos: ${redisKind === 'cluster' ? 'Redis Cluster' : 'redis-server'} on ${resources.redis.url}, database ${resources.databaseUrl}`);
  resources.mesh = new Mesh(env);
  await resources.mesh.start();
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const token = await createWorkspace(env);
  const scheduleToken = await createWorkspace(env, SCHEDULE_WORKSPACE);
  const agentIds = await createAgents(gatewayUrl, token);
  return { gatewayUrl, token, agentIds, schedules: { token: scheduleToken, created: await createSchedules(gatewayUrl, scheduleToken) } };
}

/** Offers the load and the manual runs while the kills run; resolves when all three are done. */
async function loadUnderKills(options: ChaosOptions, platform: StartedPlatform, deps: KillDeps, loadId: string) {
  const { gatewayUrl, token } = platform;
  const durationMs = options.duration * 1000;
  const plan = planKills(options.kills, durationMs);
  const loadStartedAt = Date.now();
  let failed = false;
  const loading = offerFacts({ gatewayUrl, workspace: WORKSPACE, token, rate: options.rate, durationMs, retryForMs: RETRY_AFTER_LOAD_MS, loadId }).catch((error: unknown) => {
    failed = true;
    throw error;
  });
  const manual = startManualRuns({ gatewayUrl, workspace: WORKSPACE, token, agentId: platform.agentIds.get(MANUAL_RUN_AGENT)!, durationMs });
  const [load, kills, manualRuns] = await Promise.all([loading, runKills(deps, plan, loadStartedAt, () => failed), manual]);
  return { plan, loadStartedAt, load, kills, manualRuns };
}

/**
 * `npm run chaos`: starts the mesh on a Redis and database of its own, offers
 * the load while killing what the options name, waits for quiescence, checks
 * and prints the report. Resolves true when every check passed.
 */
export async function runChaos(options: ChaosOptions, resources: ChaosResources, log: (line: string) => void): Promise<boolean> {
  const platform = await startPlatform(resources, options.redis, log);
  const { mesh, redis: ownRedis, databaseUrl } = resources as Required<ChaosResources>;
  const loadId = randomUUID().slice(0, 8);
  log(`chaos: mesh up; offering ${options.rate} facts/s for ${options.duration} s, ${options.kills.length} kills`);
  const { manualRuns, ...loaded } = await loadUnderKills(options, platform, { mesh, redis: ownRedis, databaseUrl }, loadId);
  log(`chaos: load done (${loaded.load.acknowledged.size}/${loaded.load.offered} acknowledged); waiting for quiescence`);
  await disableSchedules(platform.gatewayUrl, platform.schedules.token, platform.schedules.created);

  // Opened only now: the PostgreSQL kill terminates every connection to the database.
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  const redis = createRedis(ownRedis.url, { connectionName: 'chaos-checks' });
  redis.on('error', (error: Error) => log(`chaos: redis: ${error.message}`));
  try {
    const workspaceId = (await pg.query<{ id: string }>('SELECT id::text FROM workspaces WHERE slug = $1', [WORKSPACE])).rows[0]!.id;
    const quiesceTimeoutMs = options.quiesceTimeout * 1000;
    const quiescenceMs = await waitForQuiescence({ pg, redis, prefix: PREFIX, workspaceId }, quiesceTimeoutMs);
    const exits = [...mesh.unexpectedExits];
    const { checks, figures } = await verify({ ...platform, ...loaded, pg, redis, prefix: PREFIX, workspace: WORKSPACE, workspaceId, loadId, exits, quiescenceMs, quiesceTimeoutMs });
    const schedules = await readScheduleOutcomes(pg, platform.schedules.created);
    checks.push(...checkSchedules(schedules));
    for (const s of schedules) log(`chaos: schedule ${s.name}: ${s.fires} fires (${s.late} late), ${s.skipped} passed over, over ${s.span} slots`);
    log(formatReport({ rate: options.rate, durationS: options.duration, manualRuns: manualRuns.answers, ...figures }, checks));
    for (const exit of exits) log(`exit of ${exit.slot} (${String(exit.exit)}):\n${exit.tail}`);
    return checks.every((check) => check.pass);
  } finally {
    await pg.end();
    await closeRedis(redis);
  }
}

/** Stops what runChaos started: the mesh, the redis-server, and the database unless it is to be kept. */
export async function cleanUp(resources: ChaosResources, keep: boolean, log: (line: string) => void): Promise<void> {
  await resources.mesh?.stop().catch((error: unknown) => log(`chaos: stopping the mesh: ${String(error)}`));
  await resources.redis?.stop();
  if (!resources.databaseUrl) return;
  if (keep) log(`chaos: database kept: ${resources.databaseUrl}`);
  else await dropDatabase(resources.databaseUrl);
}
