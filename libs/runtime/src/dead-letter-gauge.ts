import { Gauge, type Registry } from 'prom-client';

/** What the gauge reads at scrape time (`SqlDeadLetterStore` in `@switchyard/db`). */
export interface DeadLetterCounts {
  countWaiting(): Promise<Array<{ stream: string; group: string; count: number }>>;
}

/**
 * Registers `switchyard_dead_letters` on a service's registry: the dead
 * letters of its own consumer groups not replayed yet, by stream and group,
 * read from PostgreSQL at each scrape (so every replica reports the same
 * figure, and it survives restarts). A failed read reports nothing rather
 * than failing the scrape.
 */
export function registerDeadLetterGauge(registry: Registry, counts: DeadLetterCounts, own: ReadonlyArray<{ stream: string; group: string }>): Gauge {
  return new Gauge({
    name: 'switchyard_dead_letters',
    help: 'Dead letters not replayed yet, by source stream and consumer group',
    labelNames: ['stream', 'group'],
    registers: [registry],
    async collect() {
      this.reset();
      let rows: Awaited<ReturnType<DeadLetterCounts['countWaiting']>>;
      try {
        rows = await counts.countWaiting();
      } catch {
        return;
      }
      for (const { stream, group } of own) {
        const row = rows.find((r) => r.stream === stream && r.group === group);
        this.set({ stream, group }, row?.count ?? 0);
      }
    },
  });
}
