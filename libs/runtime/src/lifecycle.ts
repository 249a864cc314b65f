import type { Logger } from '@switchyard/logging';

/** Something that can be stopped: a service, a server, a connection. */
export interface Closable {
  close(): Promise<void>;
}

/** Options of closeOnSignals. */
export interface CloseOnSignalsOptions {
  /** After this long, the process exits even if close() has not finished. @defaultValue 25000 */
  deadlineMs?: number;
}

/**
 * Wires SIGTERM and SIGINT to `service.close()`, then exits 0 (1 when close
 * failed or the deadline passed). A second signal exits at once.
 */
export function closeOnSignals(service: Closable, log: Logger, options: CloseOnSignalsOptions = {}): void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) process.exit(1);
    closing = true;
    log.info({ signal }, 'shutting down');
    const deadline = setTimeout(() => {
      log.error({ deadlineMs: options.deadlineMs ?? 25_000 }, 'shutdown deadline passed');
      process.exit(1);
    }, options.deadlineMs ?? 25_000);
    deadline.unref();
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/**
 * Closes every part, in order, even when one fails; rejects with the first
 * failure after all were tried.
 */
export async function closeAll(parts: ReadonlyArray<Closable | (() => Promise<void>) | undefined>): Promise<void> {
  let first: unknown;
  for (const part of parts) {
    if (!part) continue;
    try {
      await (typeof part === 'function' ? part() : part.close());
    } catch (error) {
      first ??= error;
    }
  }
  if (first !== undefined) throw first;
}
