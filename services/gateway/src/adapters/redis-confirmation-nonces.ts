import { toKey, type Redis } from '@switchyard/redis';
import type { ConfirmationNonces } from '../notification-ports';

/**
 * Used Mattermost confirmations (decision 0043), one Redis key per nonce
 * (`SET NX` with the confirmation's remaining life): the first use wins,
 * a replay finds the key. Losing Redis loses them — a replay then still
 * meets the approval's first-write-wins decision, which it cannot change.
 */
export class RedisConfirmationNonces implements ConfirmationNonces {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async use(nonce: string, ttlMs: number): Promise<boolean> {
    const set = await this.redis.set(toKey(this.prefix, 'mm-confirm', nonce), '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX');
    return set === 'OK';
  }
}
