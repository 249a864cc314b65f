import { MAX_MAILBOX_MESSAGE_CHARS, RUN_FACT_KINDS, RunFactPayloadSchema, type Fact, type MailboxEnvelope } from '@switchyard/contracts';
import { delegationReturnedFact } from '@switchyard/core';
import { recordFacts, type SqlRunner } from '@switchyard/db';
import type { Logger } from '@switchyard/logging';

/** Posts to a session's mailbox (SessionMailbox.post). */
export interface MailboxPoster {
  post(envelope: MailboxEnvelope): Promise<'delivered' | 'closed'>;
}

/** Options of DelegationReturns. */
export interface DelegationReturnsOptions {
  sql: SqlRunner;
  mailbox: MailboxPoster;
  log: Logger;
}

const ENDINGS: ReadonlySet<string> = new Set([RUN_FACT_KINDS.completed, RUN_FACT_KINDS.failed, RUN_FACT_KINDS.cancelled]);
const MAX_RESULT_CHARS = 10_000;

interface ChildRow {
  workspace_id: string;
  slug: string;
  agent_id: string;
  status: 'completed' | 'failed' | 'cancelled';
  depth: number;
  outcome: { summary?: string } | null;
  error: { code?: string; message?: string } | null;
  reason: string | null;
  parent_run_id: string;
  parent_session_id: string;
}

/**
 * Folds a delegated run's result back to its parent (decision 0032): on the
 * `agent.run.completed|failed|cancelled` of a run of origin `delegation`, the
 * result goes to the parent's session mailbox as an event envelope (the
 * parent's loop reads it at its next step), and `agent.delegation.returned`
 * records it — the only trace when the parent had already ended (its mailbox
 * was closed), so the result is never lost. A redelivered fact whose return
 * is already recorded posts nothing again.
 */
export class DelegationReturns {
  constructor(private readonly options: DelegationReturnsOptions) {}

  async handle(facts: readonly Fact[]): Promise<void> {
    for (const fact of facts) {
      if (ENDINGS.has(fact.kind) && fact.subject.type === 'run' && mayBeDelegation(fact)) await this.fold(fact);
    }
  }

  private async fold(fact: Fact): Promise<void> {
    const { sql, mailbox, log } = this.options;
    const [child] = await sql.$queryRawUnsafe<ChildRow[]>(
      `SELECT c.workspace_id::text, w.slug, c.agent_id::text, c.status::text AS status, c.depth, c.outcome, c.error, c.reason,
              p.id::text AS parent_run_id, p.session_id::text AS parent_session_id
         FROM runs c
         JOIN workspaces w ON w.id = c.workspace_id
         JOIN runs p ON p.workspace_id = c.workspace_id AND p.id = (c.origin->>'parentRunId')::uuid
        WHERE c.id = $1::uuid AND c.origin_type = 'delegation'`,
      fact.subject.id,
    );
    if (!child) return;
    const key = `delegation:${fact.subject.id}:returned`;
    if (await this.alreadyReturned(child.workspace_id, key)) return;
    const result = resultOf(child).slice(0, MAX_RESULT_CHARS);
    const content = JSON.stringify({ delegatedRun: fact.subject.id, agentId: child.agent_id, status: child.status, result }).slice(0, MAX_MAILBOX_MESSAGE_CHARS);
    const posted = await mailbox.post({
      schemaVersion: 1,
      id: fact.id,
      sessionId: child.parent_session_id,
      from: { type: 'event', eventId: fact.id, kind: fact.kind, subject: fact.subject },
      content,
      sentAt: new Date().toISOString(),
    });
    const returned = delegationReturnedFact(
      { workspaceId: child.workspace_id, workspaceSlug: child.slug, actor: { type: 'system', id: 'switchyard' } },
      child.parent_run_id,
      { childRunId: fact.subject.id, childAgentId: child.agent_id, status: child.status, result, delivery: posted === 'delivered' ? 'delivered' : 'parent_ended' },
      { runId: fact.subject.id, agentId: child.agent_id, depth: child.depth + 1 },
    );
    await recordFacts(sql, [{ fact: returned, correlationId: fact.id }]);
    log.info({ childRunId: fact.subject.id, parentRunId: child.parent_run_id, delivery: posted }, 'delegated run returned');
  }

  /** Whether the return was recorded already (stored — its key claimed, decision 0041 — or still in the outbox). */
  private async alreadyReturned(workspaceId: string, key: string): Promise<boolean> {
    const [row] = await this.options.sql.$queryRawUnsafe<Array<{ found: boolean }>>(
      `SELECT EXISTS (SELECT 1 FROM platform_event_keys WHERE workspace_id = $1::uuid AND idempotency_key = $2)
           OR EXISTS (SELECT 1 FROM fact_outbox WHERE workspace_id = $1::uuid AND idempotency_key = $2) AS found`,
      workspaceId,
      key,
    );
    return row?.found === true;
  }
}

/** Whether the ending fact's run may be a delegation: its payload says so, or (a fact older than the field) does not say. */
function mayBeDelegation(fact: Fact): boolean {
  const origin = RunFactPayloadSchema.shape.origin.safeParse((fact.payload as { origin?: unknown } | null)?.origin);
  return !origin.success || origin.data === undefined || origin.data === 'delegation';
}

/** What the parent is told: the summary of a completed child, or why it did not complete. */
function resultOf(child: ChildRow): string {
  if (child.status === 'completed') return child.outcome?.summary ?? '';
  return child.error?.message ?? child.reason ?? child.status;
}
