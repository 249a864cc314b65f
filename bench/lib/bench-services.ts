import { spawnSync } from 'node:child_process';
import type { ServiceProcess } from '@switchyard/testing';

/**
 * The service processes a benchmark started, killed however the benchmark
 * ends: normally, by an error nothing catches (which skips its `finally`), or
 * by SIGINT/SIGTERM (whose default action skips even the `exit` handlers).
 * Left running, they would load the machine under every later measurement.
 * What a signal leaves behind besides them (the bench database, its Redis
 * keys) is named on stderr.
 */
export function benchServices(leftBehind: string): ServiceProcess[] {
  const procs: ServiceProcess[] = [];
  process.on('exit', () => procs.forEach((p) => p.child.kill('SIGKILL')));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      // Also a service still starting (spawned, not yet in the list): every child of this process.
      spawnSync('pkill', ['-KILL', '-P', String(process.pid)]);
      console.error(`${signal}: services killed; left behind: ${leftBehind}`);
      process.exit(1);
    });
  }
  return procs;
}
