import type { Client } from 'pg';
import { AGENT_SPEC_SCHEMA_VERSION, AgentSpecSchema } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import type { SqlRunner } from '@switchyard/db';
import { createLogger } from '@switchyard/logging';
import type { ActivationQueue } from '@switchyard/redis';
import { RunWaker } from '@switchyard/runs';
import { ActivationGuards } from '../src/activation-guards';
import { AgentIndex } from '../src/agent-index';
import { Matcher } from '../src/matcher';
import { SqlMatcherStore } from '../src/adapters/sql-matcher-store';
import type { DelegationReturns } from '../src/delegation-returns';

/**
 * Why this exists: the matcher's integration tests on the real store seed the
 * same rows (an enabled agent, version 1, a one-step scripted spec) and build
 * the same Matcher; written once here.
 */
export async function insertScriptedAgent(pg: Client, workspaceId: string, agentId: string, triggers: unknown[]): Promise<void> {
  const user = newId();
  await pg.query(`INSERT INTO agents (id, workspace_id, name, latest_version, enabled, created_by, updated_at) VALUES ($1, $2, 'a', 1, true, $3, now())`, [agentId, workspaceId, user]);
  const spec = AgentSpecSchema.parse({ name: 'a', instructions: 'x', model: { provider: 'scripted', name: 's' }, script: [{ say: 'ok' }], triggers });
  await pg.query(`INSERT INTO agent_versions (agent_id, version, schema_version, spec, created_by) VALUES ($1, 1, $2, $3::jsonb, $4)`, [agentId, AGENT_SPEC_SCHEMA_VERSION, JSON.stringify(spec), user]);
}

/** A loaded Matcher on the real PostgreSQL store (or `store`, e.g. one that counts its reads) and BullMQ queue. */
export async function sqlMatcher(options: {
  sql: SqlRunner;
  queue: ActivationQueue;
  consumer: string;
  cursorLingerMs?: number;
  store?: SqlMatcherStore;
  returns?: DelegationReturns;
}): Promise<Matcher> {
  const log = createLogger({ service: 'test', level: 'silent' });
  const matcher = new Matcher({
    store: options.store ?? new SqlMatcherStore(options.sql, log),
    index: new AgentIndex(),
    guards: new ActivationGuards({ maxCausationDepth: 5 }),
    activations: { enqueue: (jobs) => new RunWaker(options.queue, log).wake(jobs) },
    log,
    consumer: options.consumer,
    ...(options.cursorLingerMs === undefined ? {} : { cursorLingerMs: options.cursorLingerMs }),
    ...(options.returns ? { returns: options.returns } : {}),
  });
  await matcher.load();
  return matcher;
}
