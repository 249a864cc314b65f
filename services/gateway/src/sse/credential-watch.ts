import type { Logger } from '@switchyard/logging';
import type { Credential } from '../http/auth';
import type { Principal } from '../auth-ports';

/** Options of CredentialWatch. */
export interface CredentialWatchOptions {
  /** Looks a credential up in the store (not a cache); null when it no longer works. */
  recheck: (credential: Credential) => Promise<Principal | null>;
  /** How often every watched credential is looked up again (STREAM_AUTH_RECHECK_MS). */
  intervalMs: number;
  log: Logger;
}

interface Watched {
  credential: Credential;
  tokenId: string;
  listeners: Set<() => void>;
}

/**
 * Keeps open streams honest: a stream is authorised once, when it opens, and
 * then lives for hours. Every `intervalMs` each credential that has a stream
 * open on this replica is looked up again in the store — one lookup per
 * credential, however many streams it has — and the streams of one that was
 * revoked, expired or whose run ended are ended. The store, not a cache, so
 * that a revocation made through any replica reaches every replica.
 */
export class CredentialWatch {
  private readonly watched = new Map<string, Watched>();
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;

  constructor(private readonly options: CredentialWatchOptions) {}

  /** Calls `onRevoked` once the credential stops working; returns the function that stops watching. */
  watch(credential: Credential, tokenId: string, onRevoked: () => void): () => void {
    let entry = this.watched.get(credential.hash);
    if (!entry) {
      entry = { credential, tokenId, listeners: new Set() };
      this.watched.set(credential.hash, entry);
    }
    entry.listeners.add(onRevoked);
    this.timer ??= setInterval(() => void this.sweep(), this.options.intervalMs).unref();
    const watchedEntry = entry;
    return () => {
      watchedEntry.listeners.delete(onRevoked);
      if (watchedEntry.listeners.size === 0 && this.watched.get(credential.hash) === watchedEntry) this.watched.delete(credential.hash);
      this.stopWhenIdle();
    };
  }

  /** Looks every watched credential up once; ends the streams of those that stopped working. */
  async sweep(): Promise<void> {
    // A slow store must not pile sweeps up.
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      await Promise.all([...this.watched.values()].map((entry) => this.check(entry)));
    } finally {
      this.sweeping = false;
      this.stopWhenIdle();
    }
  }

  private async check(entry: Watched): Promise<void> {
    let principal: Principal | null;
    try {
      principal = await this.options.recheck(entry.credential);
    } catch (error) {
      // The store is away: the streams stay open and the next sweep asks again.
      this.options.log.warn({ err: error }, 'stream credential recheck failed');
      return;
    }
    if (principal?.tokenId === entry.tokenId) return;
    if (this.watched.get(entry.credential.hash) === entry) this.watched.delete(entry.credential.hash);
    for (const listener of entry.listeners) listener();
  }

  private stopWhenIdle(): void {
    if (this.watched.size > 0 || !this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
