import { spawnScript } from '@switchyard/testing';

/**
 * runService in a real process: a SIGTERM that arrives while the service is
 * still starting (a supervisor, or a test that acts on its first lines) closes
 * it once started and exits 0 — it must not be killed by the signal's default
 * action with nothing closed.
 */
describe('runService', () => {
  it('a SIGTERM during start-up closes the service once it started, and exits 0', async () => {
    const service = await spawnScript('libs/runtime/test/fixtures/slow-start-service.ts', {}, { readyPattern: /"msg":"starting"/ });
    expect(await service.stop('SIGTERM')).toBe(0);
    const output = service.output();
    const order = ['"msg":"starting"', '"msg":"shutting down"', '"msg":"slow-start started"', '"msg":"closed"'].map((line) => output.indexOf(line));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });
});
