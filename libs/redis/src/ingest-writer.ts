import type { FactAcceptedMessage, IngestItem } from '@switchyard/contracts';
import type { Redis } from './connection';
import { factContentHash } from './fact-content';
import { idempotencyKeyOf } from './keys';
import { MESSAGE_FIELD } from './stream-producer';

/** Per item: accepted now (its own id) or resolved to the id an earlier claim of its key got. */
export type IngestResult = { id: string; status: 'accepted' | 'duplicate' };

/**
 * A key reused for another content: the item's index and either the id of
 * the fact that claimed the key, or the index of an earlier item of the same
 * call that holds it with another content.
 */
export type ReusedKey = { index: number; id: string } | { index: number; earlierIndex: number };

/** Thrown by `accept` with `reusedKey: 'refuse'`: nothing of the call was written. */
export class IdempotencyKeyReusedError extends Error {
  constructor(readonly reused: ReusedKey) {
    super(`idempotency key of item ${reused.index} is claimed for another content`);
    this.name = new.target.name;
  }
}

/** Options of {@link RedisIngestWriter.accept}. */
export interface AcceptOptions {
  /**
   * `refuse`: a key claimed for a fact of another content refuses the whole
   * call with IdempotencyKeyReusedError, nothing written (producers' facts:
   * `409 IDEMPOTENCY_KEY_REUSED`). `resolve`: it
   * resolves to the earlier id like an identical repeat (the platform's own
   * facts, whose keys name one status change). @defaultValue 'resolve'
   */
  reusedKey?: 'refuse' | 'resolve';
}

/**
 * One round trip per call. A claimed key's value is `<id> <content hash>`
 * (a bare `<id>` from before the hash was kept counts as the same content).
 * With `refuse`, every key is checked first — against Redis and against the
 * batch's earlier facts — and a reused one returns `{'REUSED', index, id}`
 * (`{'REUSED', index, '', earlierIndex}` within the batch) before anything is written. Then, per fact: claim its key with SET NX
 * (returning the earlier value if the key was claimed) and XADD only the
 * facts whose claim succeeded. Atomic, so two concurrent producers with the
 * same key get the same id, and a key is never claimed without its entry.
 * KEYS: [ingest, idemKey1, …]; ARGV: ttlSeconds, mode, then per fact: keyIndex (0 = none), id, hash, json.
 */
const ACCEPT_SCRIPT = `
local ttl = ARGV[1]
local function split(value)
  local space = string.find(value, ' ', 1, true)
  if space then return string.sub(value, 1, space - 1), string.sub(value, space + 1) end
  return value, false
end
if ARGV[2] == 'refuse' then
  local seen = {}
  local i, index = 3, 0
  while i <= #ARGV do
    local keyIndex = tonumber(ARGV[i])
    if keyIndex > 0 then
      local key = KEYS[keyIndex]
      local hash = ARGV[i + 2]
      local earlier = seen[key]
      if earlier then
        if earlier[1] ~= hash then return {'REUSED', tostring(index), '', tostring(earlier[2])} end
      else
        local claimed = redis.call('GET', key)
        if claimed then
          local priorId, priorHash = split(claimed)
          if priorHash and priorHash ~= hash then return {'REUSED', tostring(index), priorId} end
        end
        seen[key] = {hash, index}
      end
    end
    i, index = i + 4, index + 1
  end
end
local out = {}
local i = 3
while i <= #ARGV do
  local keyIndex = tonumber(ARGV[i])
  local id = ARGV[i + 1]
  local prior = false
  if keyIndex > 0 then
    prior = redis.call('SET', KEYS[keyIndex], id .. ' ' .. ARGV[i + 2], 'NX', 'EX', ttl, 'GET')
  end
  if prior then
    local priorId = split(prior)
    table.insert(out, priorId)
  else
    redis.call('XADD', KEYS[1], '*', '${MESSAGE_FIELD}', ARGV[i + 3])
    table.insert(out, id)
  end
  i = i + 4
end
return out
`;

interface IngestCommands {
  switchyardAccept(numKeys: number, ...args: string[]): Promise<unknown>;
}

/** Accepts producers' facts into the `ingest` stream, with their idempotency keys' claims (the gateway). */
export class RedisIngestWriter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ingestKey: string,
    private readonly idempotencyTtlSeconds: number,
  ) {
    redis.defineCommand('switchyardAccept', { lua: ACCEPT_SCRIPT });
  }

  /**
   * Appends the facts with their key claims, atomically. Per item: `accepted`
   * (its own id) or `duplicate` (the id its key was claimed with). A key
   * claimed for another content resolves the same way, or with `refuse`
   * throws IdempotencyKeyReusedError before anything is written.
   */
  async accept(items: readonly IngestItem[], options: AcceptOptions = {}): Promise<IngestResult[]> {
    if (items.length === 0) return [];
    const keys = [this.ingestKey];
    const args: string[] = [String(this.idempotencyTtlSeconds), options.reusedKey ?? 'resolve'];
    const now = new Date().toISOString();
    for (const { fact, correlationId } of items) {
      let keyIndex = 0;
      if (fact.idempotencyKey !== undefined) {
        keys.push(this.keyOf(fact.workspaceId, fact.idempotencyKey));
        keyIndex = keys.length;
      }
      const message: FactAcceptedMessage = { id: fact.id, type: 'fact_accepted', occurredAt: now, correlationId, schemaVersion: 1, fact };
      args.push(String(keyIndex), fact.id, keyIndex > 0 ? factContentHash(fact) : '', JSON.stringify(message));
    }
    const reply = (await (this.redis as unknown as IngestCommands).switchyardAccept(keys.length, ...keys, ...args)) as string[];
    if (reply[0] === 'REUSED') {
      const index = Number(reply[1]);
      throw new IdempotencyKeyReusedError(reply[2] ? { index, id: reply[2] } : { index, earlierIndex: Number(reply[3]) });
    }
    return reply.map((id, index) => ({ id, status: id === items[index]!.fact.id ? 'accepted' : 'duplicate' }));
  }

  private keyOf(workspaceId: string, idempotencyKey: string): string {
    return idempotencyKeyOf(this.prefix, workspaceId, idempotencyKey);
  }
}
