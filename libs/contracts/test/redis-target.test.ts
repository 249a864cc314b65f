import { isHashTagged, RedisTargetSchema } from '@switchyard/contracts';

describe('RedisTargetSchema (REDIS_URL, decision 0061)', () => {
  it('reads a single server URL as it is, and a cluster as its node list with credentials and TLS', () => {
    expect(RedisTargetSchema.parse('redis://:pw@127.0.0.1:6379/2')).toEqual({ kind: 'single', url: 'redis://:pw@127.0.0.1:6379/2' });
    expect(RedisTargetSchema.parse('redis-cluster://127.0.0.1:7000,redis-b:7001')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '127.0.0.1', port: 7000 },
        { host: 'redis-b', port: 7001 },
      ],
      tls: false,
    });
    expect(RedisTargetSchema.parse('rediss-cluster://app:p%40ss@[::1]:7000/')).toEqual({ kind: 'cluster', nodes: [{ host: '::1', port: 7000 }], username: 'app', password: 'p@ss', tls: true });
    expect(RedisTargetSchema.parse('redis-cluster://:secret@h:1')).toMatchObject({ password: 'secret' });
  });

  it('refuses what is neither', () => {
    for (const url of ['', 'localhost:6379', 'http://h:1', 'redis-cluster://h', 'redis-cluster://h:0', 'redis-cluster://h:1,,h:2', 'redis-cluster://h:1/0']) {
      expect({ url, ok: RedisTargetSchema.safeParse(url).success }).toEqual({ url, ok: false });
    }
  });

  it('calls a prefix in braces a hash tag', () => {
    expect([isHashTagged('{sy}'), isHashTagged('sy')]).toEqual([true, false]);
  });
});
