/**
 * Why this exists: integration tests wait for effects that happen in other
 * processes (a fact persisted, an entry dead-lettered). Polling with a
 * deadline keeps them fast when things work and failing clearly when not.
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
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
  throw new Error(`timed out waiting for ${options.what ?? 'condition'}${last ? `: ${String(last)}` : ''}`);
}
