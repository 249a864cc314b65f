import { toKey, type Redis } from '@switchyard/redis';
import type { AgentSlots, SlotClaim, SlotLease } from '../ports';

/** Highest `flow.concurrency` an agent spec allows: `holders` reads every slot that may exist. */
const MAX_SLOTS = 10;

/** Extends the lease only if the slot still holds this run. KEYS: [slot]; ARGV: runId, leaseMs. */
const RENEW_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`;

/** Deletes the slot only if it still holds this run (compare-and-delete). KEYS: [slot]; ARGV: runId. */
const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

/** Names another run in the slot, only if it still holds this run (compare-and-set). KEYS: [slot]; ARGV: runId, toRunId, leaseMs. */
const PASS_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
`;

/**
 * Claims a slot for the oldest candidate no slot holds. KEYS: every slot of
 * the agent (MAX_SLOTS); ARGV: concurrency, leaseMs, candidate run ids
 * (oldest first). Returns [granted run id or '', slot index, ...held run ids].
 */
const CLAIM_SCRIPT = `
local concurrency = tonumber(ARGV[1])
local held, holders, free = {}, {}, nil
for i = 1, #KEYS do
  local value = redis.call('GET', KEYS[i])
  if value then
    held[value] = true
    holders[#holders + 1] = value
  elseif i <= concurrency and not free then
    free = i
  end
end
if free then
  for j = 3, #ARGV do
    if not held[ARGV[j]] then
      redis.call('SET', KEYS[free], ARGV[j], 'PX', ARGV[2])
      holders[#holders + 1] = ARGV[j]
      return {ARGV[j], free - 1, unpack(holders)}
    end
  end
end
return {'', -1, unpack(holders)}
`;

/**
 * Moves the slot holding one run to another. KEYS: every slot of the agent;
 * ARGV: concurrency, leaseMs, from run id, to run id. The slot that holds
 * `from` now holds `to` (a fresh lease); when none holds `from` (its lease
 * lapsed), a free slot among the first `concurrency` is taken. Returns
 * [slot index or -1, ...held run ids].
 */
const HAND_OVER_SCRIPT = `
local concurrency = tonumber(ARGV[1])
local holders, mine, free = {}, nil, nil
for i = 1, #KEYS do
  local value = redis.call('GET', KEYS[i])
  if value == ARGV[3] and not mine then
    mine = i
  elseif value then
    holders[#holders + 1] = value
  elseif i <= concurrency and not free then
    free = i
  end
end
local slot = mine or free
if slot then
  redis.call('SET', KEYS[slot], ARGV[4], 'PX', ARGV[2])
  holders[#holders + 1] = ARGV[4]
  return {slot - 1, unpack(holders)}
end
return {-1, unpack(holders)}
`;

interface SlotCommands {
  switchyardClaimSlot(...args: Array<string | number>): Promise<[string, number, ...string[]]>;
  switchyardHandOverSlot(...args: Array<string | number>): Promise<[number, ...string[]]>;
  switchyardRenewSlot(key: string, runId: string, leaseMs: number): Promise<number>;
  switchyardReleaseSlot(key: string, runId: string): Promise<number>;
  switchyardPassSlot(key: string, runId: string, toRunId: string, leaseMs: number): Promise<number>;
}

/**
 * An agent's execution slots: keys `{prefix}:agent-slot:{agentId}:{i}` for
 * i < concurrency, each holding the id of the run executing in it, with a
 * lease (PX) so a runner that dies frees its slot by itself. A claim reads
 * every slot and takes one in one script, so two lanes of an agent never
 * claim the same run (the keys of one agent share its id; under Redis
 * Cluster they would need a hash tag on it).
 */
export class RedisAgentSlots implements AgentSlots {
  private readonly commands: SlotCommands;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('switchyardClaimSlot', { numberOfKeys: MAX_SLOTS, lua: CLAIM_SCRIPT });
    redis.defineCommand('switchyardHandOverSlot', { numberOfKeys: MAX_SLOTS, lua: HAND_OVER_SCRIPT });
    redis.defineCommand('switchyardRenewSlot', { numberOfKeys: 1, lua: RENEW_SCRIPT });
    redis.defineCommand('switchyardReleaseSlot', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
    redis.defineCommand('switchyardPassSlot', { numberOfKeys: 1, lua: PASS_SCRIPT });
    this.commands = redis as unknown as SlotCommands;
  }

  private key(agentId: string, index: number): string {
    return toKey(this.prefix, 'agent-slot', agentId, String(index));
  }

  /** Every slot key the agent may have (MAX_SLOTS): the scripts read them all. */
  private keys(agentId: string): string[] {
    return Array.from({ length: MAX_SLOTS }, (_, index) => this.key(agentId, index));
  }

  async claim(agentId: string, concurrency: number, candidates: readonly string[], leaseMs: number): Promise<SlotClaim> {
    const keys = this.keys(agentId);
    const [runId, index, ...held] = await this.commands.switchyardClaimSlot(...keys, Math.min(concurrency, MAX_SLOTS), leaseMs, ...candidates);
    if (!runId) return { granted: null, held: new Set(held) };
    return { granted: { runId, lease: this.lease(this.key(agentId, Number(index)), runId, leaseMs) }, held: new Set(held) };
  }

  async handOver(agentId: string, concurrency: number, fromRunId: string, toRunId: string, leaseMs: number): Promise<SlotClaim> {
    const keys = this.keys(agentId);
    const [index, ...held] = await this.commands.switchyardHandOverSlot(...keys, Math.min(concurrency, MAX_SLOTS), leaseMs, fromRunId, toRunId);
    if (Number(index) < 0) return { granted: null, held: new Set(held) };
    return { granted: { runId: toRunId, lease: this.lease(this.key(agentId, Number(index)), toRunId, leaseMs) }, held: new Set(held) };
  }

  private lease(key: string, runId: string, leaseMs: number): SlotLease {
    return {
      renew: async () => (await this.commands.switchyardRenewSlot(key, runId, leaseMs)) === 1,
      release: async () => void (await this.commands.switchyardReleaseSlot(key, runId)),
      pass: async (toRunId) => ((await this.commands.switchyardPassSlot(key, runId, toRunId, leaseMs)) === 1 ? this.lease(key, toRunId, leaseMs) : null),
    };
  }

  async holders(agentId: string): Promise<Set<string>> {
    const keys = this.keys(agentId);
    const values = await this.redis.mget(...keys);
    return new Set(values.filter((value): value is string => value !== null));
  }
}
