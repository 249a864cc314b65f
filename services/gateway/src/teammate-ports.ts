import type { IngestItem, Teammate, TeammateMemory } from '@switchyard/contracts';
import type { DeliveryCommitPort } from '@switchyard/core';

/** A teammate as a delivery needs it: its roster row, without what its turns say. */
export interface DeliveryTarget {
  id: string;
  name: string;
  agentId: string;
  sessionId: string;
  stopped: boolean;
}

/** The teammates roster (`teammates`), every call scoped by workspace, and where deliveries to it commit (decision 0035). */
export interface TeammateStore extends DeliveryCommitPort {
  list(workspaceId: string): Promise<Teammate[]>;
  /** The roster row by name, read by its unique index alone (a message's path: no runs read). */
  deliveryTarget(workspaceId: string, name: string): Promise<DeliveryTarget | null>;
  get(workspaceId: string, name: string): Promise<Teammate | null>;
  bySession(workspaceId: string, sessionId: string): Promise<Teammate | null>;
  /** Inserts it with its facts, in one transaction; `name_taken` writes nothing. */
  create(
    input: { id: string; workspaceId: string; name: string; agentId: string; sessionId: string; watch: unknown; team: string | null; memory: TeammateMemory | null; createdBy: string },
    facts: IngestItem[],
  ): Promise<'created' | 'name_taken'>;
  /** Marks it stopped, cancels its queued turn and flags its running one, with its facts. */
  stop(workspaceId: string, name: string, facts: (teammate: { id: string; sessionId: string }) => IngestItem[]): Promise<'stopped' | 'already' | 'not_found'>;
}
