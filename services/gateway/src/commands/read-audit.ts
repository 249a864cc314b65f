import { AUDIT_FACT_KINDS, type AuditActorsResponse, type AuditPage, type AuditQuery } from '@switchyard/contracts';
import { matchesKindGlob } from '@switchyard/core';
import type { AuditReader } from '../audit-ports';
import { assertRole } from '../http/auth';
import type { Principal } from '../auth-ports';

/** The audit kinds a glob selects: all of them without one; none when it matches no audit kind. */
export function auditKindsMatching(glob: string | undefined): string[] {
  return AUDIT_FACT_KINDS.filter((kind) => glob === undefined || matchesKindGlob(glob, kind));
}

/**
 * A page of the caller's workspace's audit trail (admins): facts of the
 * audit kinds matching `kind`, by `actor`, older than `before`, newest first.
 * `nextBefore` is the last entry's seq when the page is full.
 */
export async function readAudit(reader: AuditReader, principal: Principal, query: AuditQuery): Promise<AuditPage> {
  assertRole(principal, 'admin');
  const kinds = auditKindsMatching(query.kind);
  if (kinds.length === 0) return { entries: [], nextBefore: null };
  const entries = await reader.page(
    { id: principal.workspaceId, slug: principal.workspaceSlug },
    { kinds, limit: query.limit, ...(query.actor ? { actorId: query.actor } : {}), ...(query.before ? { before: query.before } : {}) },
  );
  return { entries, nextBefore: entries.length === query.limit ? entries.at(-1)!.seq : null };
}

/** Everyone who appears in the caller's workspace's audit trail, with their name now (the person filter's choices). */
export async function readAuditActors(reader: AuditReader, principal: Principal): Promise<AuditActorsResponse> {
  assertRole(principal, 'admin');
  return { actors: await reader.actors(principal.workspaceId, AUDIT_FACT_KINDS) };
}
