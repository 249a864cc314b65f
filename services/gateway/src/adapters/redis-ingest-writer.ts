import { toKey, type Redis, MESSAGE_FIELD } from '@switchyard/redis';
import type { FactAcceptedMessage } from '@switchyard/contracts';
import type { IngestItem, IngestWriter } from '../ports';

/**
 * One round trip per request: for each fact, claim its idempotency key with
 * SET NX (returning the earlier id if the key was claimed) and XADD only the
 * facts whose claim succeeded. Atomic, so two concurrent requests with the
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

/** IngestWriter on the `ingest` stream. */
export class RedisIngestWriter implements IngestWriter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ingestKey: string,
    private readonly idempotencyTtlSeconds: number,
  ) {
    redis.defineCommand('switchyardAccept', { lua: ACCEPT_SCRIPT });
  }

  async accept(items: readonly IngestItem[]): Promise<Array<{ id: string; status: 'accepted' | 'duplicate' }>> {
    const keys = [this.ingestKey];
    const args: string[] = [String(this.idempotencyTtlSeconds)];
    const now = new Date().toISOString();
    for (const { fact, correlationId } of items) {
      let keyIndex = 0;
      if (fact.idempotencyKey !== undefined) {
        keys.push(toKey(this.prefix, 'idem', fact.workspaceId, Buffer.from(fact.idempotencyKey).toString('base64url')));
        keyIndex = keys.length;
      }
      const message: FactAcceptedMessage = {
        id: fact.id,
        type: 'fact_accepted',
        occurredAt: now,
        correlationId,
        schemaVersion: 1,
        fact,
      };
      args.push(String(keyIndex), fact.id, JSON.stringify(message));
    }
    const ids = (await (this.redis as unknown as AcceptCommand).switchyardAccept(keys.length, ...keys, ...args)) as string[];
    return ids.map((id, index) => ({ id, status: id === items[index]!.fact.id ? 'accepted' : 'duplicate' }));
  }
}

interface AcceptCommand {
  switchyardAccept(numKeys: number, ...args: string[]): Promise<unknown>;
}
