import { toKey, type Redis } from '@switchyard/redis';
import { hashToken } from '@switchyard/core';
import type { SsoPendingStore, SsoStart } from '../sso-ports';

/** Sign-ins begun, in Redis under the hash of their state, each read once (GETDEL). */
export class RedisSsoPendingStore implements SsoPendingStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(state: string): string {
    return toKey(this.prefix, 'sso', hashToken(state));
  }

  async put(start: SsoStart, ttlMs: number): Promise<void> {
    await this.redis.set(this.key(start.state), JSON.stringify({ state: start.state, nonce: start.nonce, codeVerifier: start.codeVerifier }), 'PX', ttlMs);
  }

  async take(state: string): Promise<Pick<SsoStart, 'state' | 'nonce' | 'codeVerifier'> | null> {
    const value = await this.redis.getdel(this.key(state));
    return value ? (JSON.parse(value) as Pick<SsoStart, 'state' | 'nonce' | 'codeVerifier'>) : null;
  }
}
