import { z } from 'zod';
import { AppError, ErrorCode } from '@switchyard/contracts';
import { BaseEnvSchema, loadConfig } from '@switchyard/config';

describe('loadConfig', () => {
  const schema = BaseEnvSchema.extend({ PORT: z.coerce.number().int().min(1).max(65535).default(8080) });

  it('applies defaults', () => {
    const config = loadConfig(schema, {});
    expect(config.PORT).toBe(8080);
    expect(config.REDIS_PREFIX).toBe('{sy}');
  });

  it('names every bad variable', () => {
    expect.assertions(4);
    try {
      loadConfig(schema, { PORT: 'eighty', REDIS_URL: 'not a url' });
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe(ErrorCode.CONFIG_INVALID);
      expect((error as AppError).message).toContain('PORT');
      expect((error as AppError).message).toContain('REDIS_URL');
    }
  });

  it('takes a Redis Cluster only with a prefix in braces (a hash tag): else a script would cross slots', () => {
    const cluster = 'redis-cluster://127.0.0.1:7000,127.0.0.1:7001';
    expect(loadConfig(schema, { REDIS_URL: cluster }).REDIS_PREFIX).toBe('{sy}');
    expect(loadConfig(schema, { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PREFIX: 'sy' }).REDIS_PREFIX).toBe('sy');
    expect(() => loadConfig(schema, { REDIS_URL: cluster, REDIS_PREFIX: 'sy' })).toThrow('a Redis Cluster needs a prefix in braces ({sy})');
    for (const prefix of ['{sy', 'sy}', '{}', '{a:b}', '{SY}']) expect(() => loadConfig(schema, { REDIS_PREFIX: prefix })).toThrow(AppError);
    for (const url of ['redis-cluster://', 'redis-cluster://a:1,b', 'http://127.0.0.1:6379', 'redis-cluster://a:70000']) {
      expect(() => loadConfig(schema, { REDIS_URL: url })).toThrow('REDIS_URL');
    }
  });
});
