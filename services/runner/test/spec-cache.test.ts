import { SpecCache } from '../src/spec-cache';

/**
 * The runner's cache of parsed agent specs (issue 37: a lane's batch of
 * claims reads a version once): claims of one version at once share one
 * read; a spec that does not parse is remembered as null; a read that fails
 * is not remembered.
 */
describe('SpecCache', () => {
  const stored = { name: 'cached', instructions: 'Answer.', model: { provider: 'scripted', name: 'script' }, script: [{ say: 'done' }], triggers: [{ kind: 'a.fact' }] };

  it('runs of one version claimed at once share one read, and later ones read nothing', async () => {
    const reads: string[] = [];
    const cache = new SpecCache(async (agentId, version) => (reads.push(`${agentId}:${version}`), stored));
    const specs = await Promise.all(Array.from({ length: 10 }, () => cache.get('a', 1)));
    await cache.get('a', 1);
    await cache.get('a', 2);
    expect(specs.every((spec) => spec?.name === 'cached')).toBe(true);
    expect(reads).toEqual(['a:1', 'a:2']);
  });

  it('remembers a spec that does not parse as null; forgets a read that failed', async () => {
    let fail = true;
    const cache = new SpecCache(async (agentId) => {
      if (agentId === 'bad') return { name: 42 };
      if (fail) throw new Error('connection reset');
      return stored;
    });
    expect(await cache.get('bad', 1)).toBeNull();
    await expect(cache.get('flaky', 1)).rejects.toThrow('connection reset');
    fail = false;
    expect((await cache.get('flaky', 1))?.name).toBe('cached');
  });
});
