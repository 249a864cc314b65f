import { toKey, type Redis } from '@switchyard/redis';
import type { AgentSlots, SlotLease } from '../ports';

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

interface SlotCommands {
  switchyardRenewSlot(key: string, runId: string, leaseMs: number): Promise<number>;
  switchyardReleaseSlot(key: string, runId: string): Promise<number>;
}

/**
 * An agent's execution slots: keys `{prefix}:agent-slot:{agentId}:{i}` for
 * i < concurrency, each holding the id of the run executing in it, with a
 * lease (PX) so a runner that dies frees its slot by itself.
 */
export class RedisAgentSlots implements AgentSlots {
  private readonly commands: SlotCommands;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('switchyardRenewSlot', { numberOfKeys: 1, lua: RENEW_SCRIPT });
    redis.defineCommand('switchyardReleaseSlot', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
    this.commands = redis as unknown as SlotCommands;
  }

  private key(agentId: string, index: number): string {
    return toKey(this.prefix, 'agent-slot', agentId, String(index));
  }

  async acquire(agentId: string, concurrency: number, runId: string, leaseMs: number): Promise<SlotLease | null> {
    for (let index = 0; index < Math.min(concurrency, MAX_SLOTS); index++) {
      const key = this.key(agentId, index);
      if ((await this.redis.set(key, runId, 'PX', leaseMs, 'NX')) === 'OK') {
        return {
          renew: async () => (await this.commands.switchyardRenewSlot(key, runId, leaseMs)) === 1,
          release: async () => void (await this.commands.switchyardReleaseSlot(key, runId)),
        };
      }
    }
    return null;
  }

  async holders(agentId: string): Promise<Set<string>> {
    const keys = Array.from({ length: MAX_SLOTS }, (_, index) => this.key(agentId, index));
    const values = await this.redis.mget(...keys);
    return new Set(values.filter((value): value is string => value !== null));
  }
}
