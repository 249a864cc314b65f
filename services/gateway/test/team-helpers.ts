import { Client } from 'pg';
import { newId } from '@switchyard/core';
import { SqlPool } from '@switchyard/db';
import { apiClient, type TestPlatform } from '@switchyard/testing';
import { SqlAgentTokens } from '../../runner/src/adapters/sql-agent-tokens';

/** The client apiClient returns. */
export type Api = ReturnType<typeof apiClient>;

/** A scripted agent spec: these tests need agents to exist and to hold tokens, not to run. */
export const agentSpec = (name: string, triggers: Array<{ kind: string }> = [{ kind: 'test.never' }]) => ({
  name,
  instructions: 'Do it.',
  model: { provider: 'scripted', name: 'demo' },
  script: [{ say: 'done' }],
  triggers,
});

/** A running run of an agent and the agent token minted for it. */
export interface AgentSession {
  agentId: string;
  runId: string;
  sessionId: string;
  token: string;
  api: Api;
}

/**
 * Why this exists: the task ledger and delegation act on behalf of runs, and
 * what a run does is told apart by its agent token (attribution, causedBy,
 * delegation rules). This inserts a `running` run of an agent and mints its
 * token with the runner's own adapter, so the real gateway sees exactly what
 * a runner's call would carry — without running a model.
 */
export class AgentSessions {
  private readonly pg: Client;
  private readonly sql: SqlPool;
  private readonly tokens: SqlAgentTokens;

  constructor(private readonly platform: TestPlatform) {
    this.pg = new Client({ connectionString: platform.db.url });
    this.sql = new SqlPool({ databaseUrl: platform.db.url, poolMax: 2 });
    this.tokens = new SqlAgentTokens(this.sql);
  }

  async connect(): Promise<void> {
    await this.pg.connect();
  }

  /** The database client, for assertions on rows. */
  get db(): Client {
    return this.pg;
  }

  async workspaceId(slug: string): Promise<string> {
    return (await this.pg.query(`SELECT id::text FROM workspaces WHERE slug = $1`, [slug])).rows[0].id;
  }

  /** A running run of `agentId` at `depth` (in `sessionId`, e.g. a teammate's, when given), with its token. */
  async start(workspaceId: string, agentId: string, depth = 0, sessionId = newId()): Promise<AgentSession> {
    const runId = newId();
    await this.pg.query(
      // No lane: the runs trigger puts it in its agent's lane.
      `INSERT INTO runs (id, workspace_id, agent_id, agent_version, origin_type, origin, status, depth, session_id, started_at)
       VALUES ($1, $2, $3, 1, 'manual', $4, 'running', $5, $6, now())`,
      [runId, workspaceId, agentId, JSON.stringify({ type: 'manual', input: 'go', userId: newId() }), depth, sessionId],
    );
    const { token } = await this.tokens.mint({ workspaceId, runId, agentId, depth, ttlMs: 600_000 });
    return { agentId, runId, sessionId, token, api: apiClient(this.platform.gatewayUrl, token) };
  }

  /** A token for a run that already exists (a delegated child the gateway created), as its runner would mint it. */
  async tokenFor(workspaceId: string, run: { id: string; agentId: string; sessionId: string; depth: number }): Promise<AgentSession> {
    const { token } = await this.tokens.mint({ workspaceId, runId: run.id, agentId: run.agentId, depth: run.depth, ttlMs: 600_000 });
    return { agentId: run.agentId, runId: run.id, sessionId: run.sessionId, token, api: apiClient(this.platform.gatewayUrl, token) };
  }

  async close(): Promise<void> {
    await this.sql.$disconnect();
    await this.pg.end();
  }
}

/** Facts of a kind glob stored so far in the workspace (after the outbox relayed them). */
export async function factsOf(platform: TestPlatform, api: Api, ws: string, kind: string): Promise<any[]> {
  await platform.factsRecorded();
  const response = await api('GET', `/v1/workspaces/${ws}/events?kind=${encodeURIComponent(kind)}&limit=1000`);
  if (response.status !== 200) throw new Error(`listing facts: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.events;
}
