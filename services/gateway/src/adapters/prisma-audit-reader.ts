import type { Actor, Fact } from '@switchyard/contracts';
import { FACT_COLUMNS, factFromRow, type FactRow, type PrismaClient } from '@switchyard/db';
import type { AuditPageQuery, AuditReader, NamedActor } from '../audit-ports';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Actor types whose id is a user's: a person's token (`member`), or the gateway's older attribution (`user`). */
const PERSON_TYPES = new Set<Actor['type']>(['member', 'user']);

/**
 * The audit trail on PostgreSQL: platform_events by kind (its index
 * `(workspace_id, kind, seq)`), newest first, with the names of people and
 * agents read from `users` and `agents`.
 */
export class PrismaAuditReader implements AuditReader {
  constructor(private readonly prisma: PrismaClient) {}

  async page(workspace: { id: string; slug: string }, query: AuditPageQuery): Promise<Fact[]> {
    const rows = await this.prisma.$queryRawUnsafe<FactRow[]>(
      `SELECT ${FACT_COLUMNS} FROM platform_events
        WHERE workspace_id = $1::uuid AND kind = ANY($2::text[]) AND seq < $3 AND ($4::text IS NULL OR actor->>'id' = $4)
        ORDER BY seq DESC LIMIT $5`,
      workspace.id,
      [...query.kinds],
      query.before ?? Number.MAX_SAFE_INTEGER,
      query.actorId ?? null,
      query.limit,
    );
    const facts = rows.map((row) => factFromRow(row, workspace.slug));
    const names = await this.namesOf(workspace.id, facts.flatMap((fact) => (fact.actor && !fact.actor.name ? [fact.actor] : [])));
    return facts.map((fact) => {
      const name = fact.actor && !fact.actor.name ? names.get(keyOf(fact.actor)) : undefined;
      return name ? { ...fact, actor: { ...fact.actor!, name } } : fact;
    });
  }

  async actors(workspaceId: string, kinds: readonly string[]): Promise<NamedActor[]> {
    // The latest recorded form of each actor (a name recorded then, when there is one).
    const rows = await this.prisma.$queryRawUnsafe<Array<{ actor: Actor }>>(
      `SELECT DISTINCT ON (actor->>'type', actor->>'id') actor FROM platform_events
        WHERE workspace_id = $1::uuid AND kind = ANY($2::text[]) AND actor IS NOT NULL
        ORDER BY actor->>'type', actor->>'id', seq DESC`,
      workspaceId,
      [...kinds],
    );
    const names = await this.namesOf(workspaceId, rows.map((row) => row.actor));
    return rows.map(({ actor }) => ({ type: actor.type, id: actor.id, name: names.get(keyOf(actor)) ?? actor.name ?? null }));
  }

  /** The names now of the people and agents among these actors, by `type:id`. */
  private async namesOf(workspaceId: string, actors: readonly Actor[]): Promise<Map<string, string>> {
    const ids = (wanted: (type: Actor['type']) => boolean) => [...new Set(actors.filter((a) => wanted(a.type) && UUID.test(a.id)).map((a) => a.id))];
    const people = ids((type) => PERSON_TYPES.has(type));
    const agents = ids((type) => type === 'agent');
    const [userRows, agentRows] = await Promise.all([
      people.length === 0 ? [] : this.prisma.$queryRawUnsafe<Array<{ id: string; name: string }>>('SELECT id::text AS id, name FROM users WHERE id = ANY($1::uuid[])', people),
      agents.length === 0
        ? []
        : this.prisma.$queryRawUnsafe<Array<{ id: string; name: string }>>('SELECT id::text AS id, name FROM agents WHERE workspace_id = $1::uuid AND id = ANY($2::uuid[])', workspaceId, agents),
    ]);
    const names = new Map<string, string>();
    for (const row of userRows) for (const type of PERSON_TYPES) names.set(`${type}:${row.id}`, row.name);
    for (const row of agentRows) names.set(`agent:${row.id}`, row.name);
    return names;
  }
}

const keyOf = (actor: Actor) => `${actor.type}:${actor.id.toLowerCase()}`;
