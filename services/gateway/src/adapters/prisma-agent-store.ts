import {
  AGENT_SPEC_SCHEMA_VERSION,
  AgentSpecSchema,
  AppError,
  ErrorCode,
  SUPPORTED_AGENT_SPEC_SCHEMA_VERSIONS,
} from '@switchyard/contracts';
import { isDeepStrictEqual } from 'node:util';
import { newId } from '@switchyard/core';
import { recordFacts, type Agent, type AgentVersion, type Prisma, type PrismaClient } from '@switchyard/db';
import type {
  AgentGuard,
  AgentRecord,
  AgentStore,
  AgentUpdateInput,
  AgentUpdateResult,
  AgentVersionLookup,
  AgentVersionRecord,
  AgentVersionSummaryRecord,
  StoredAgentSpec,
} from '../agent-ports';
import type { FactsOf } from '../fact-ports';

/** The latest version is the highest: versions are only ever added with the head's bump. */
export const LATEST_VERSION = { versions: { orderBy: { version: 'desc' }, take: 1 } } as const;

/**
 * Locks a live agent's head row (the registry's lock: decision 0007), so that
 * every change of the agent — saves, enable, disable, pins, tags, delete — is
 * serialized; null when the workspace has no live agent with that id.
 */
export async function lockHead(tx: Prisma.TransactionClient, workspaceId: string, id: string): Promise<{ latest: number; pinned: number | null; enabled: boolean } | null> {
  const [head] = await tx.$queryRaw<Array<{ latest_version: number; pinned_version: number | null; enabled: boolean }>>`
    SELECT latest_version, pinned_version, enabled FROM agents
     WHERE id = ${id}::uuid AND workspace_id = ${workspaceId}::uuid AND deleted_at IS NULL
     FOR UPDATE`;
  return head ? { latest: head.latest_version, pinned: head.pinned_version, enabled: head.enabled } : null;
}

/** The agent as this transaction sees it. */
export async function readAgent(tx: Prisma.TransactionClient, id: string): Promise<AgentRecord> {
  const head = await tx.agent.findUniqueOrThrow({ where: { id }, include: LATEST_VERSION });
  return toRecord(head, head.versions[0]!);
}

/** Runs a write's guard on the agent as it is, under the head lock this transaction holds: check and write are one step. */
export async function guardLocked(tx: Prisma.TransactionClient, id: string, guard: AgentGuard | undefined): Promise<void> {
  if (guard) await guard(await readAgent(tx, id));
}

/** Whether Prisma refused a write for a unique constraint (a live agent's name). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === 'P2002';
}

/** Parses a stored spec (a JSON column is a boundary), refusing shapes this code cannot read. */
export function readSpec(row: Pick<AgentVersion, 'agentId' | 'version' | 'schemaVersion' | 'spec'>): StoredAgentSpec {
  if (!SUPPORTED_AGENT_SPEC_SCHEMA_VERSIONS.includes(row.schemaVersion)) {
    throw new AppError(ErrorCode.INTERNAL, 'stored agent spec has an unsupported schema version', {
      agentId: row.agentId,
      version: row.version,
      schemaVersion: row.schemaVersion,
    });
  }
  const { enabled: _enabled, ...spec } = AgentSpecSchema.parse(row.spec);
  return spec;
}

export function toRecord(head: Agent, latest: AgentVersion): AgentRecord {
  return {
    id: head.id,
    workspaceId: head.workspaceId,
    name: head.name,
    version: latest.version,
    pinnedVersion: head.pinnedVersion,
    enabled: head.enabled,
    createdAt: head.createdAt,
    updatedAt: head.updatedAt,
    spec: readSpec(latest),
  };
}

/** Whether two specs say the same thing: compared as the JSON they are stored as (key order and absent keys aside). */
function sameSpec(a: StoredAgentSpec, b: StoredAgentSpec): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));
}

function toVersionRecord(row: AgentVersion): AgentVersionRecord {
  return { agentId: row.agentId, version: row.version, createdBy: row.createdBy, createdAt: row.createdAt, spec: readSpec(row) };
}

/**
 * The agent registry on PostgreSQL: `agents` (the head: name, flag, latest
 * version) and `agent_versions` (immutable specs). Every query is scoped by
 * workspace id and ignores deleted agents, except the history reads.
 */
export class PrismaAgentStore implements AgentStore {
  constructor(private readonly prisma: PrismaClient) {}

  async create(input: { workspaceId: string; userId: string; spec: StoredAgentSpec; enabled: boolean }, facts: FactsOf<AgentRecord>) {
    const now = new Date();
    try {
      return await this.prisma.$transaction(async (tx) => {
      const head = await tx.agent.create({
        data: {
          id: newId(),
          workspaceId: input.workspaceId,
          name: input.spec.name,
          latestVersion: 1,
          enabled: input.enabled,
          createdBy: input.userId,
          createdAt: now,
          updatedAt: now,
          versions: { create: { version: 1, ...this.versionData(input.spec, input.userId, now) } },
        },
        include: LATEST_VERSION,
      });
      const agent = toRecord(head, head.versions[0]!);
      await recordFacts(tx, facts(agent));
      return { ok: true as const, agent };
      });
    } catch (error) {
      if (isUniqueViolation(error)) return { ok: false as const, reason: 'name_taken' as const };
      throw error;
    }
  }

  async list(workspaceId: string, options: { after?: string; limit: number }): Promise<AgentRecord[]> {
    const heads = await this.prisma.agent.findMany({
      where: { workspaceId, deletedAt: null, ...(options.after === undefined ? {} : { id: { gt: options.after } }) },
      orderBy: { id: 'asc' },
      take: options.limit,
      include: LATEST_VERSION,
    });
    return heads.map((head) => toRecord(head, head.versions[0]!));
  }

  async get(workspaceId: string, id: string): Promise<AgentRecord | null> {
    const head = await this.prisma.agent.findFirst({ where: { id, workspaceId, deletedAt: null }, include: LATEST_VERSION });
    return head ? toRecord(head, head.versions[0]!) : null;
  }

  async update(input: AgentUpdateInput, facts: FactsOf<Extract<AgentUpdateResult, { ok: true }>>, guard?: AgentGuard): Promise<AgentUpdateResult> {
    try {
      return await this.prisma.$transaction(async (tx): Promise<AgentUpdateResult> => {
        const result = await this.updateLocked(tx, input, guard);
        if (result.ok) await recordFacts(tx, facts(result));
        return result;
      });
    } catch (error) {
      if (isUniqueViolation(error)) return { ok: false, reason: 'name_taken' };
      throw error;
    }
  }

  /** The update, in its transaction. */
  private async updateLocked(tx: Prisma.TransactionClient, input: AgentUpdateInput, guard: AgentGuard | undefined): Promise<AgentUpdateResult> {
        // The row lock serializes every change to this agent (PUTs, enable, disable,
        // delete): of concurrent PUTs with the same If-Match the first bumps the
        // version and the others, once the lock is theirs, see the new one and refuse.
        // It also makes `enabledChanged` exact, which a read before an unlocked
        // conditional update would not be.
        const [head] = await tx.$queryRaw<Array<{ latest_version: number; enabled: boolean }>>`
          SELECT latest_version, enabled FROM agents
           WHERE id = ${input.id}::uuid AND workspace_id = ${input.workspaceId}::uuid AND deleted_at IS NULL
           FOR UPDATE`;
        if (!head) return { ok: false, reason: 'not_found' };
        await guardLocked(tx, input.id, guard);
        if (input.ifMatch !== undefined && input.ifMatch !== head.latest_version) {
          return { ok: false, reason: 'version_conflict', current: head.latest_version };
        }
        const unchanged = await this.unchangedUpdate(tx, input, head);
        if (unchanged) return unchanged;
        const version = head.latest_version + 1;
        const now = new Date();
        const updated = await tx.agent.update({
          where: { id: input.id },
          data: {
            latestVersion: version,
            name: input.spec.name,
            updatedAt: now,
            ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
            versions: { create: { version, ...this.versionData(input.spec, input.userId, now) } },
          },
          include: LATEST_VERSION,
        });
        return { ok: true, agent: toRecord(updated, updated.versions[0]!), versionCreated: true, enabledChanged: updated.enabled !== head.enabled };
  }

  /**
   * A PUT whose spec equals the latest version's makes no version: it only
   * sets the flag when given (under the head's lock already held). Null when
   * the spec differs and a version must be written.
   */
  private async unchangedUpdate(
    tx: Prisma.TransactionClient,
    input: AgentUpdateInput,
    head: { latest_version: number; enabled: boolean },
  ): Promise<AgentUpdateResult | null> {
    const latest = await tx.agentVersion.findUniqueOrThrow({ where: { agentId_version: { agentId: input.id, version: head.latest_version } } });
    if (!sameSpec(readSpec(latest), input.spec)) return null;
    const flips = input.enabled !== undefined && input.enabled !== head.enabled;
    const agent = flips
      ? await tx.agent.update({ where: { id: input.id }, data: { enabled: input.enabled, updatedAt: new Date() } })
      : await tx.agent.findUniqueOrThrow({ where: { id: input.id } });
    return { ok: true, agent: toRecord(agent, latest), versionCreated: false, enabledChanged: flips };
  }

  async setEnabled(
    workspaceId: string,
    id: string,
    enabled: boolean,
    facts: FactsOf<{ agent: AgentRecord; changed: boolean }>,
    guard?: AgentGuard,
  ): Promise<{ agent: AgentRecord; changed: boolean } | null> {
    return this.prisma.$transaction(async (tx) => {
      if (guard) {
        if (!(await lockHead(tx, workspaceId, id))) return null;
        await guardLocked(tx, id, guard);
      }
      // Conditional on the old value, so that of concurrent flips exactly one reports the change.
      const { count } = await tx.agent.updateMany({
        where: { id, workspaceId, deletedAt: null, enabled: !enabled },
        data: { enabled, updatedAt: new Date() },
      });
      const head = await tx.agent.findFirst({ where: { id, workspaceId, deletedAt: null }, include: LATEST_VERSION });
      if (!head) return null;
      const result = { agent: toRecord(head, head.versions[0]!), changed: count === 1 };
      await recordFacts(tx, facts(result));
      return result;
    });
  }

  async delete(workspaceId: string, id: string, facts: FactsOf<{ name: string; version: number }>): Promise<{ name: string; version: number } | null> {
    const now = new Date();
    return this.prisma.$transaction(async (tx) => {
      const [deleted] = await tx.agent.updateManyAndReturn({
        where: { id, workspaceId, deletedAt: null },
        data: { deletedAt: now, enabled: false, updatedAt: now },
        select: { name: true, latestVersion: true },
      });
      if (!deleted) return null;
      const result = { name: deleted.name, version: deleted.latestVersion };
      await recordFacts(tx, facts(result));
      return result;
    });
  }

  async listVersions(
    workspaceId: string,
    id: string,
    options: { after: number; limit: number },
  ): Promise<AgentVersionSummaryRecord[] | null> {
    // Only the name out of each spec: a page of whole specs could be megabytes.
    const rows = await this.prisma.$queryRaw<Array<{ version: number; name: string; created_by: string; created_at: Date }>>`
      SELECT v.version, v.spec->>'name' AS name, v.created_by::text AS created_by, v.created_at
        FROM agent_versions v JOIN agents a ON a.id = v.agent_id
       WHERE a.id = ${id}::uuid AND a.workspace_id = ${workspaceId}::uuid
         AND v.version > ${options.after}
       ORDER BY v.version
       LIMIT ${options.limit}`;
    if (rows.length === 0 && !(await this.exists(workspaceId, id))) return null;
    return rows.map((row) => ({ version: row.version, name: row.name, createdBy: row.created_by, createdAt: row.created_at }));
  }

  async getVersion(workspaceId: string, id: string, version: number): Promise<AgentVersionLookup> {
    const row = await this.prisma.agentVersion.findFirst({ where: { agentId: id, version, agent: { workspaceId } } });
    if (row) return { ok: true, version: toVersionRecord(row) };
    return { ok: false, reason: (await this.exists(workspaceId, id)) ? 'version_not_found' : 'agent_not_found' };
  }

  async deletedAt(workspaceId: string, id: string): Promise<Date | null> {
    const row = await this.prisma.agent.findFirst({ where: { id, workspaceId, deletedAt: { not: null } }, select: { deletedAt: true } });
    return row?.deletedAt ?? null;
  }

  /** Whether the workspace has (or had: deleted agents count) this agent. */
  private async exists(workspaceId: string, id: string): Promise<boolean> {
    return (await this.prisma.agent.count({ where: { id, workspaceId } })) > 0;
  }

  private versionData(spec: StoredAgentSpec, userId: string, now: Date) {
    return versionRowData(spec, userId, now);
  }
}

/** The columns of a new `agent_versions` row (besides its agent and number). */
export function versionRowData(spec: StoredAgentSpec, userId: string, now: Date) {
  return {
    schemaVersion: AGENT_SPEC_SCHEMA_VERSION,
    spec: spec as unknown as Prisma.InputJsonObject,
    createdBy: userId,
    createdAt: now,
  };
}
