import { AppError, ErrorCode } from '@switchyard/contracts';
import { hashToken, newAgentTokenSecret, newId } from '@switchyard/core';
import type { SqlRunner } from '@switchyard/db';
import type { AgentTokens, MintAgentTokenInput } from '../agent-token-port';

/**
 * Agent tokens in `agent_tokens` on PostgreSQL, through any raw-SQL runner
 * (the runner's `SqlPool`, or a Prisma client: decision 0015). The token acts as the agent's
 * creator (`agents.created_by`), read in the same statement that inserts the
 * row, so a token never exists for an agent of another workspace. A try run's
 * token acts as the member who tried it (`userId`; its agent may be a draft
 * with no row), minted only for a try run of that workspace and a member of it; a crafting
 * turn's acts as the person crafting (decision 0056). Expiry is
 * computed by the database clock, the one the gateway compares it with.
 */
export class SqlAgentTokens implements AgentTokens {
  constructor(private readonly sql: SqlRunner) {}

  async mint(input: MintAgentTokenInput): Promise<{ token: string }> {
    if (!Number.isInteger(input.ttlMs) || input.ttlMs <= 0) throw new RangeError(`ttlMs must be a positive integer, got ${input.ttlMs}`);
    const token = newAgentTokenSecret();
    // A second mint for the run (a run resumed or re-executed) replaces the
    // token: one live secret per run, and the run's end revokes that one.
    const inserted = await this.sql.$executeRawUnsafe(
      `INSERT INTO agent_tokens (id, hash, workspace_id, run_id, agent_id, user_id, depth, expires_at)
       SELECT $1::uuid, $2::text, $7::uuid, $3::uuid, $6::uuid, coalesce($8::uuid, a.created_by), $4::int, now() + make_interval(secs => $5::double precision / 1000)
         FROM (SELECT 1) AS one
         LEFT JOIN agents a ON a.id = $6::uuid AND a.workspace_id = $7::uuid
        WHERE CASE WHEN $8::uuid IS NULL THEN a.id IS NOT NULL
                   ELSE EXISTS (SELECT 1 FROM runs r WHERE r.id = $3::uuid AND r.workspace_id = $7::uuid AND r.origin_type IN ('try', 'craft'))
                        AND EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = $7::uuid AND m.user_id = $8::uuid) END
       ON CONFLICT (run_id) DO UPDATE
         SET hash = EXCLUDED.hash, workspace_id = EXCLUDED.workspace_id, agent_id = EXCLUDED.agent_id,
             user_id = EXCLUDED.user_id, depth = EXCLUDED.depth, expires_at = EXCLUDED.expires_at,
             revoked_at = NULL, created_at = now()`,
      newId(),
      hashToken(token),
      input.runId,
      input.depth,
      input.ttlMs,
      input.agentId,
      input.workspaceId,
      input.userId ?? null,
    );
    if (inserted === 0 && input.userId !== undefined) {
      throw new AppError(ErrorCode.RUN_NOT_FOUND, 'no such try or crafting run, or member, in this workspace: no agent token minted', { id: input.runId, workspaceId: input.workspaceId });
    }
    if (inserted === 0) {
      throw new AppError(ErrorCode.AGENT_NOT_FOUND, 'no such agent in this workspace: no agent token minted', {
        id: input.agentId,
        workspaceId: input.workspaceId,
      });
    }
    return { token };
  }

  async revoke(runId: string): Promise<void> {
    await this.sql.$executeRawUnsafe(
      `UPDATE agent_tokens SET revoked_at = now() WHERE run_id = $1::uuid AND revoked_at IS NULL`,
      runId,
    );
  }
}
