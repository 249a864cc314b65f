import { createHash } from 'node:crypto';
import type { AcceptedFact } from '@switchyard/contracts';

/** The part of a fact an idempotency key stands for: what was recorded and by whom. */
export type FactContent = Pick<AcceptedFact, 'kind' | 'subject' | 'actor' | 'statedActor' | 'payload'>;

/**
 * A digest of a fact's content (kind, subject, actor, stated actor, payload),
 * independent of key order in objects, so that "the same fact again" can be
 * told from "another fact under the same idempotency key" — in Redis, where a
 * claimed key keeps it beside the id, and against a fact read back from
 * PostgreSQL (jsonb does not keep key order).
 */
export function factContentHash(fact: FactContent): string {
  const content = { kind: fact.kind, subject: fact.subject, actor: fact.actor ?? null, statedActor: fact.statedActor ?? null, payload: fact.payload };
  return createHash('sha256').update(canonicalJson(content)).digest('base64url');
}

/** JSON with the keys of every object sorted. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
