import { z } from 'zod';
import { AppError, ErrorCode } from '@switchyard/contracts';
import { BaseEnvSchema, loadConfig } from '@switchyard/config';

describe('loadConfig', () => {
  const schema = BaseEnvSchema.extend({ PORT: z.coerce.number().int().min(1).max(65535).default(8080) });

  it('applies defaults', () => {
    const config = loadConfig(schema, {});
    expect(config.PORT).toBe(8080);
    expect(config.REDIS_PREFIX).toBe('sy');
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
});
