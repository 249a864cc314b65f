import { createLogger } from '@switchyard/logging';
import type { Credential } from '../src/http/auth';
import type { Principal } from '../src/auth-ports';
import { CredentialWatch } from '../src/sse/credential-watch';

const principal = (tokenId: string): Principal => ({ tokenId, userId: 'u', workspaceId: 'w', workspaceSlug: 'acme', role: 'viewer' });

/**
 * Issue 13: the watch behind "revocation reaches live streams", driven by
 * calling sweep() (no timers): one store lookup per credential however many
 * streams it has, the streams of a revoked credential ended once, and a store
 * that fails leaves streams open.
 */
describe('CredentialWatch', () => {
  const log = createLogger({ service: 'test', level: 'silent' });
  const alice: Credential = { hash: 'h-alice', agent: false };
  const bob: Credential = { hash: 'h-bob', agent: true };

  it('looks each credential up once per sweep and ends the streams of one no longer active', async () => {
    const active = new Map<string, Principal>([['h-alice', principal('t-alice')], ['h-bob', principal('t-bob')]]);
    const lookups: string[] = [];
    const watch = new CredentialWatch({ recheck: async (c) => (lookups.push(c.hash), active.get(c.hash) ?? null), intervalMs: 60_000, log });
    const ended: string[] = [];
    const stopFirst = watch.watch(alice, 't-alice', () => ended.push('alice-1'));
    watch.watch(alice, 't-alice', () => ended.push('alice-2'));
    watch.watch(bob, 't-bob', () => ended.push('bob'));
    await watch.sweep();
    expect(lookups.sort()).toEqual(['h-alice', 'h-bob']);
    expect(ended).toEqual([]);

    active.delete('h-alice');
    stopFirst();
    await watch.sweep();
    expect(ended).toEqual(['alice-2']);
    // Ended once: the credential is no longer watched.
    await watch.sweep();
    expect(ended).toEqual(['alice-2']);
    expect(lookups.filter((h) => h === 'h-alice')).toHaveLength(2);
  });

  it('ends a stream whose credential now stands for another token, and keeps streams open while the store fails', async () => {
    let answer: () => Promise<Principal | null> = async () => {
      throw new Error('connect ECONNREFUSED');
    };
    const watch = new CredentialWatch({ recheck: () => answer(), intervalMs: 60_000, log });
    const ended: string[] = [];
    watch.watch(alice, 't-alice', () => ended.push('alice'));
    await watch.sweep();
    expect(ended).toEqual([]);
    answer = async () => principal('t-other');
    await watch.sweep();
    expect(ended).toEqual(['alice']);
  });
});
