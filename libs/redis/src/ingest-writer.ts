import type { AcceptedFact, FactAcceptedMessage } from '@switchyard/contracts';
import type { Redis } from 'ioredis';
import { toKey } from './keys';
import { MESSAGE_FIELD } from './stream-producer';

/** One fact to put on `ingest`, with the request or run it came from. */
export interface IngestItem {
  fact: AcceptedFact;
  correlationId: string;
}

/** Per item: accepted now (its own id) or resolved to the id an earlier claim of its key got. */
export type IngestResult = { id: string; status: 'accepted' | 'duplicate' };

/**
 * One round trip per call: for each fact, claim its idempotency key with
 * SET NX (returning the earlier id if the key was claimed) and XADD only the
 * facts whose claim succeeded. Atomic, so two concurrent producers with the
 * same key get the same id, and a key is never claimed without its entry.
 * KEYS: [ingest, idemKey1, …]; ARGV: ttlSeconds, then per fact: keyIndex (0 = none), id, json.
 */
const ACCEPT_SCRIPT = `
local ttl = ARGV[1]
local out = {}
local i = 2
while i <= #ARGV do
  local keyIndex = tonumber(ARGV[i])
  local id = ARGV[i + 1]
  local json = ARGV[i + 2]
  local prior = false
  if keyIndex > 0 then
    prior = redis.call('SET', KEYS[keyIndex], id, 'NX', 'EX', ttl, 'GET')
  end
  if prior then
    table.insert(out, prior)
  else
    redis.call('XADD', KEYS[1], '*', '${MESSAGE_FIELD}', json)
    table.insert(out, id)
  end
  i = i + 3
end
return out
`;

interface AcceptCommand {
  switchyardAccept(numKeys: number, ...args: string[]): Promise<unknown>;
}

/**
 * Accepts facts into the `ingest` stream: the gateway for producers' facts,
 * the matcher and runner for the facts the platform itself records.
 */
export class RedisIngestWriter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ingestKey: string,
    private readonly idempotencyTtlSeconds: number,
  ) {
    redis.defineCommand('switchyardAccept', { lua: ACCEPT_SCRIPT });
  }

  async accept(items: readonly IngestItem[]): Promise<IngestResult[]> {
    if (items.length === 0) return [];
    const keys = [this.ingestKey];
    const args: string[] = [String(this.idempotencyTtlSeconds)];
    const now = new Date().toISOString();
    for (const { fact, correlationId } of items) {
      let keyIndex = 0;
      if (fact.idempotencyKey !== undefined) {
        // base64url: keys may contain ':', which a key part must not.
        keys.push(toKey(this.prefix, 'idem', fact.workspaceId, Buffer.from(fact.idempotencyKey).toString('base64url')));
        keyIndex = keys.length;
      }
      const message: FactAcceptedMessage = { id: fact.id, type: 'fact_accepted', occurredAt: now, correlationId, schemaVersion: 1, fact };
      args.push(String(keyIndex), fact.id, JSON.stringify(message));
    }
    const ids = (await (this.redis as unknown as AcceptCommand).switchyardAccept(keys.length, ...keys, ...args)) as string[];
    return ids.map((id, index) => ({ id, status: id === items[index]!.fact.id ? 'accepted' : 'duplicate' }));
  }
}
