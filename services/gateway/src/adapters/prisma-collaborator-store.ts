import { AgentIdSchema } from '@switchyard/contracts';
import { recordFacts, type PrismaClient } from '@switchyard/db';
import type { FactsOf } from '../fact-ports';
import type { CollaboratorStore, PeerAgent } from '../team-ports';

/**
 * Collaborator rules on PostgreSQL (`agent_collaborators`), read against the
 * workspace's live agents (`agents`, deleted ones excluded). Every query is
 * scoped by workspace id.
 */
export class PrismaCollaboratorStore implements CollaboratorStore {
  constructor(private readonly prisma: PrismaClient) {}

  async listPeers(workspaceId: string, agentId: string, options: { after?: string; limit: number }) {
    const rows = await this.prisma.$queryRawUnsafe<Array<{ id: string; name: string; enabled: boolean; rule: boolean | null }>>(
      `SELECT a.id::text, a.name, a.enabled, c.enabled AS rule
         FROM agents a
         LEFT JOIN agent_collaborators c ON c.agent_id = $2::uuid AND c.collaborator_id = a.id AND c.workspace_id = a.workspace_id
        WHERE a.workspace_id = $1::uuid AND a.deleted_at IS NULL AND a.id <> $2::uuid AND ($3::uuid IS NULL OR a.id > $3::uuid)
        ORDER BY a.id LIMIT $4`,
      workspaceId,
      agentId,
      options.after ?? null,
      options.limit,
    );
    return rows;
  }

  async put(input: { workspaceId: string; agentId: string; collaboratorId: string; enabled: boolean; userId: string }, facts: FactsOf<{ changed: boolean }>) {
    return this.prisma.$transaction(async (tx) => {
      // The previous state under the row's lock: a concurrent PUT of the same rule waits for this one.
      const [previous] = await tx.$queryRawUnsafe<Array<{ enabled: boolean }>>(
        `SELECT enabled FROM agent_collaborators WHERE workspace_id = $1::uuid AND agent_id = $2::uuid AND collaborator_id = $3::uuid FOR UPDATE`,
        input.workspaceId,
        input.agentId,
        input.collaboratorId,
      );
      await tx.$executeRawUnsafe(
        `INSERT INTO agent_collaborators (workspace_id, agent_id, collaborator_id, enabled, updated_by, updated_at)
         VALUES ($1::uuid, $2::uuid, $3::uuid, $4, $5::uuid, now())
         ON CONFLICT (agent_id, collaborator_id) DO UPDATE SET enabled = EXCLUDED.enabled, updated_by = EXCLUDED.updated_by, updated_at = EXCLUDED.updated_at`,
        input.workspaceId,
        input.agentId,
        input.collaboratorId,
        input.enabled,
        input.userId,
      );
      const result = { changed: previous?.enabled !== input.enabled };
      if (result.changed) await recordFacts(tx, facts(result));
      return result;
    });
  }

  async remove(input: { workspaceId: string; agentId: string; collaboratorId: string }, facts: FactsOf<{ removed: boolean }>) {
    return this.prisma.$transaction(async (tx) => {
      const removed =
        (await tx.$executeRawUnsafe(
          `DELETE FROM agent_collaborators WHERE workspace_id = $1::uuid AND agent_id = $2::uuid AND collaborator_id = $3::uuid`,
          input.workspaceId,
          input.agentId,
          input.collaboratorId,
        )) > 0;
      if (removed) await recordFacts(tx, facts({ removed }));
      return { removed };
    });
  }

  async findAgent(workspaceId: string, idOrName: string): Promise<PeerAgent | null> {
    const byId = AgentIdSchema.safeParse(idOrName).success;
    const [row] = await this.prisma.$queryRawUnsafe<PeerAgent[]>(
      `SELECT id::text, name, enabled FROM agents WHERE workspace_id = $1::uuid AND deleted_at IS NULL AND ${byId ? 'id = $2::uuid' : 'name = $2'}`,
      workspaceId,
      idOrName,
    );
    return row ?? null;
  }

  async rule(workspaceId: string, agentId: string, collaboratorId: string): Promise<boolean | null> {
    const [row] = await this.prisma.$queryRawUnsafe<Array<{ enabled: boolean }>>(
      `SELECT enabled FROM agent_collaborators WHERE workspace_id = $1::uuid AND agent_id = $2::uuid AND collaborator_id = $3::uuid`,
      workspaceId,
      agentId,
      collaboratorId,
    );
    return row?.enabled ?? null;
  }

  async enabledRoster(workspaceId: string, agentId: string): Promise<PeerAgent[]> {
    return this.prisma.$queryRawUnsafe<PeerAgent[]>(
      `SELECT a.id::text, a.name, a.enabled
         FROM agent_collaborators c JOIN agents a ON a.id = c.collaborator_id AND a.workspace_id = c.workspace_id
        WHERE c.workspace_id = $1::uuid AND c.agent_id = $2::uuid AND c.enabled AND a.enabled AND a.deleted_at IS NULL
        ORDER BY a.name LIMIT 100`,
      workspaceId,
      agentId,
    );
  }

  async ancestorPlatformGlobs(workspaceId: string, runId: string): Promise<Array<{ runId: string; globs: string[] }>> {
    // Up the delegation chain by origin.parentRunId, in the caller's workspace only; bounded like the causation depth.
    return this.prisma.$queryRawUnsafe<Array<{ runId: string; globs: string[] }>>(
      `WITH RECURSIVE chain AS (
         SELECT r.id, r.origin, r.agent_id, r.agent_version, 0 AS level FROM runs r WHERE r.workspace_id = $1::uuid AND r.id = $2::uuid
         UNION ALL
         SELECT p.id, p.origin, p.agent_id, p.agent_version, c.level + 1
           FROM chain c JOIN runs p ON p.workspace_id = $1::uuid AND p.id = (c.origin->>'parentRunId')::uuid
          WHERE c.origin->>'type' = 'delegation' AND c.level < 20)
       SELECT c.id::text AS "runId", COALESCE(ARRAY(SELECT jsonb_array_elements_text(v.spec->'tools'->'platform')), '{}') AS globs
         FROM chain c JOIN agent_versions v ON v.agent_id = c.agent_id AND v.version = c.agent_version
        WHERE c.level > 0 ORDER BY c.level`,
      workspaceId,
      runId,
    );
  }
}
