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
    const lines = new Map<string, { time: string; afterStart?: boolean }>(
      service
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line))
        .map((line) => [line.msg, line]),
    );
    // The signal came during start-up (a second before it ended), and the service was closed
    // once started. Told by the lines' contents: pino's flush at exit may reorder the last two.
    expect(Date.parse(lines.get('shutting down')!.time)).toBeLessThan(Date.parse(lines.get('slow-start started')!.time));
    expect(lines.get('closed')).toMatchObject({ afterStart: true });
  });
});
