import type { Actor, Fact } from '@switchyard/contracts';

/** Which audit facts a page holds: of these kinds, older than `before`, by one actor. */
export interface AuditPageQuery {
  /** The kinds to read (the audit kinds, narrowed by the caller's glob); never empty. */
  kinds: readonly string[];
  /** Only facts whose actor has this id (a person's user id or an agent's id). */
  actorId?: string;
  /** Only facts with a seq below this. */
  before?: number;
  limit: number;
}

/** An actor as the audit trail lists it: named as they are named now, when known. */
export type NamedActor = Omit<Actor, 'name'> & { name: string | null };

/**
 * Reads the audit trail: facts of the audit kinds (platform_events; no table
 * of its own, decision 0040). Every query is scoped by workspace id.
 */
export interface AuditReader {
  /** Facts newest first (seq descending). An actor recorded without a name gets the person's or agent's name now. */
  page(workspace: { id: string; slug: string }, query: AuditPageQuery): Promise<Fact[]>;
  /** Everyone who is the actor of a fact of these kinds, each once. */
  actors(workspaceId: string, kinds: readonly string[]): Promise<NamedActor[]>;
}
