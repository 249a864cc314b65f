import { TERMINAL_RUN_STATUSES, type Role } from '@switchyard/contracts';
import type { SqlRunner } from '@switchyard/db';
import type { AgentTokenStore, Principal } from '../auth-ports';

interface AgentTokenRow {
  id: string;
  user_id: string;
  workspace_id: string;
  slug: string;
  role: Role;
  shadow: boolean;
  crafting: boolean;
  run_id: string;
  agent_id: string;
  depth: number;
  expires_at: Date;
}

/**
 * Agent tokens on PostgreSQL, read-only (the runner writes them). One query
 * checks everything that makes a token usable, so a token stops working as
 * soon as any of them stops holding: not revoked, not expired (by the database
 * clock, the one the runner set the expiry with), its run not ended (even if
 * the runner died before revoking it), and its creator still a member — with
 * the role they have now, not the one they had at mint time. A try run's token
 * reads only (viewer, decision 0027): a shadow run changes nothing, even through
 * a tool it was wrong to call.
 */
export class PrismaAgentTokenStore implements AgentTokenStore {
  /** The gateway's Prisma client, or any raw-SQL runner (decision 0015). */
  constructor(private readonly sql: SqlRunner) {}

  async findActiveAgentToken(hash: string): Promise<Principal | null> {
    const [row] = await this.sql.$queryRawUnsafe<AgentTokenRow[]>(
      `SELECT t.id::text AS id, t.user_id::text AS user_id, t.workspace_id::text AS workspace_id, w.slug,
              m.role::text AS role, r.origin_type = 'try' AS shadow, r.origin_type = 'craft' AS crafting, t.run_id::text AS run_id, t.agent_id::text AS agent_id, t.depth,
              t.expires_at
         FROM agent_tokens t
         JOIN workspaces w ON w.id = t.workspace_id
         JOIN memberships m ON m.workspace_id = t.workspace_id AND m.user_id = t.user_id
         JOIN runs r ON r.id = t.run_id AND r.workspace_id = t.workspace_id
        WHERE t.hash = $1 AND t.revoked_at IS NULL AND t.expires_at > now()
          AND r.status::text <> ALL($2::text[])`,
      hash,
      TERMINAL_RUN_STATUSES,
    );
    if (!row) return null;
    return {
      tokenId: row.id,
      userId: row.user_id,
      workspaceId: row.workspace_id,
      workspaceSlug: row.slug,
      role: row.shadow ? 'viewer' : row.role,
      expiresAt: new Date(row.expires_at).toISOString(),
      agent: { runId: row.run_id, agentId: row.agent_id, depth: Number(row.depth) },
      ...(row.shadow ? { shadowOf: row.role } : {}),
      ...(row.crafting ? { crafting: true as const } : {}),
    };
  }
}
