import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nodeArgsFor } from './test-bundles';
import { GiveUp, waitFor } from './wait-for';

/** A service running as its own OS process. */
export interface ServiceProcess {
  child: ChildProcess;
  /** Everything it wrote, stdout and stderr. */
  output(): string;
  /** Resolves with the exit code (or signal) once the process is gone. */
  exited: Promise<number | NodeJS.Signals | null>;
  /** Sends a signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | NodeJS.Signals | null>;
}

const ROOT = path.resolve(__dirname, '../../..');

/** Options of spawnService and spawnScript. */
export interface SpawnOptions {
  /** The line that says it is up. @defaultValue a `"msg"` ending in started or listening */
  readyPattern?: RegExp;
  timeoutMs?: number;
  /**
   * Where the output goes: through a pipe into this process (the default),
   * or into a file read only when output() is called — a benchmark's load
   * generator is then not woken by every line its services log.
   */
  output?: 'pipe' | 'file';
}

/**
 * Why this exists: the crash guarantees are about processes. A test that
 * kills a service with SIGKILL must run it as a real child process, exactly
 * as `main.ts` runs in production, and wait until it says it is up.
 */
export async function spawnService(service: string, env: Record<string, string>, options: SpawnOptions = {}): Promise<ServiceProcess> {
  return spawnScript(`services/${service}/src/main.ts`, env, options);
}

/**
 * A TypeScript entry point of the repo (a path from its root) as its own
 * process, like spawnService: for the one-process platform and test fixtures.
 */
export async function spawnScript(entry: string, env: Record<string, string>, options: SpawnOptions = {}): Promise<ServiceProcess> {
  const name = path.basename(entry.replace(/\/src\/main\.ts$/, ''), '.ts');
  const toFile = options.output === 'file' ? path.join(mkdtempSync(path.join(os.tmpdir(), `sy-${name}-`)), 'output.log') : undefined;
  const fd = toFile ? openSync(toFile, 'a') : undefined;
  // Node itself runs the service (the tsx CLI would put it in a child process, and a SIGKILL
  // of the CLI would leave the service running): its test bundle, or the source through tsx.
  // BENCH_NODE_ARGS: extra flags for every spawned process (`--cpu-prof`, which NODE_OPTIONS refuses).
  const extra = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...extra, ...nodeArgsFor(entry)], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', fd ?? 'pipe', fd ?? 'pipe'],
  });
  if (fd !== undefined) closeSync(fd);
  let piped = '';
  child.stdout?.on('data', (chunk: Buffer) => (piped += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (piped += chunk.toString()));
  let fileGone = false;
  const readOutput = () => (toFile && !fileGone ? readFileSync(toFile, 'utf8') : piped);
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.on('exit', (code, signal) => {
      if (toFile) {
        // What it wrote is kept in memory, and the file goes.
        piped = readFileSync(toFile, 'utf8');
        fileGone = true;
        rmSync(path.dirname(toFile), { recursive: true, force: true });
      }
      resolve(signal ?? code);
    }),
  );
  const ready = options.readyPattern ?? /"msg":"[^"]*(started|listening)/;
  try {
    await waitFor(
      async () => {
        if (ready.test(readOutput())) return true;
        if (child.exitCode !== null || child.signalCode !== null) throw new GiveUp(`${name} exited before it was ready:\n${readOutput()}`);
        return false;
      },
      // Soon after the line: a test may act at once on it (a signal while the rest starts).
      { timeoutMs: options.timeoutMs ?? 30_000, intervalMs: toFile ? 50 : 10, what: `${name} ready` },
    );
  } catch (error) {
    if (error instanceof GiveUp) throw error;
    child.kill('SIGKILL');
    throw new Error(`${name} was not ready in time:\n${readOutput()}`, { cause: error });
  }
  return {
    child,
    output: readOutput,
    exited,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
