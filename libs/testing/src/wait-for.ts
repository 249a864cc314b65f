/**
 * Why this exists: tests wait for effects that happen in other processes (a
 * fact persisted, an entry dead-lettered, a process ready). Polling with a
 * deadline keeps them fast when things work and failing clearly when not. It
 * is the one way a test waits: a test never sleeps a fixed time (the test
 * `no-fixed-sleeps` fails on one). A wait that proves something did NOT
 * happen waits for a positive sign that the system went past the point (a
 * later fact, a cursor, a sweep, `TestPlatform.settled()`), not for time.
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false>,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (error) {
      if (error instanceof GiveUp) throw error;
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
  throw new Error(`timed out waiting for ${options.what ?? 'condition'}${last ? `: ${String(last)}` : ''}`);
}

/** Thrown by a probe when what it waits for can no longer come (the process exited): the wait ends at once with it. */
export class GiveUp extends Error {}
