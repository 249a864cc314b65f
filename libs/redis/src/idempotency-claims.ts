import type { AcceptedFact } from '@switchyard/contracts';
import type { Redis } from './connection';
import { idempotencyKeyOf } from './keys';

/**
 * Frees claimed keys that still name the given fact (compare-and-delete), so
 * a key whose fact could not be stored does not answer with its id.
 * KEYS: idempotency keys; ARGV: the fact id each should still name.
 */
const RELEASE_SCRIPT = `
local released = 0
for i, key in ipairs(KEYS) do
  local value = redis.call('GET', key)
  if value and (value == ARGV[i] or string.sub(value, 1, #ARGV[i] + 1) == ARGV[i] .. ' ') then
    redis.call('DEL', key)
    released = released + 1
  end
end
return released
`;

interface ReleaseCommand {
  switchyardRelease(numKeys: number, ...args: string[]): Promise<number>;
}

/** The idempotency keys the gateway claimed when it accepted facts (RedisIngestWriter). */
export class RedisIdempotencyClaims {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('switchyardRelease', { lua: RELEASE_SCRIPT });
  }

  /**
   * Frees the keys of facts that will never be stored, where the key still
   * names that fact (a later claim by a retry is left alone). Returns how many
   * were freed.
   */
  async release(facts: ReadonlyArray<Pick<AcceptedFact, 'id' | 'workspaceId' | 'idempotencyKey'>>): Promise<number> {
    const keyed = facts.filter((fact) => fact.idempotencyKey !== undefined);
    if (keyed.length === 0) return 0;
    const keys = keyed.map((fact) => idempotencyKeyOf(this.prefix, fact.workspaceId, fact.idempotencyKey!));
    return (this.redis as unknown as ReleaseCommand).switchyardRelease(keys.length, ...keys, ...keyed.map((fact) => fact.id));
  }
}
