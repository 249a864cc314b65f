import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { GiveUp, nodeArgsFor, waitFor } from '@switchyard/testing';

/*
 * Why this exists: the front door is about processes a person runs in a shell — `npm start`
 * (scripts/start.mjs) and `npm run admin` (scripts/admin.ts) — so its tests run them as such,
 * with the environment a shell would give them, and read what they print.
 */
const ROOT = path.resolve(__dirname, '../../..');
const run = promisify(execFile);

/** What a finished command printed, and its exit code. */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The test's environment without the servers' URLs: a command given none must find them itself. */
export function shellEnv(): NodeJS.ProcessEnv {
  const { DATABASE_URL: _db, REDIS_URL: _redis, REDIS_PREFIX: _prefix, ...shell } = process.env;
  return shell;
}

/**
 * Runs `npm run admin -- …` as its script (the run's bundle of it, else through tsx), with
 * `env` over a shell's environment; never throws.
 */
export async function runAdmin(args: string[], env: Record<string, string>): Promise<CommandResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...nodeArgsFor('scripts/admin.ts'), ...args], { cwd: ROOT, env: { ...shellEnv(), ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** The id of a process that has exited. */
export async function deadPid(): Promise<number> {
  const child = execFile(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

/** `npm start` running as a process: what it printed so far, and how it ended. */
export interface StartProcess {
  child: ChildProcess;
  pid: number;
  /** stdout and stderr so far, in arrival order. */
  output(): string;
  /** Resolves with the exit code (or the signal) once it exited. */
  exited: Promise<number | NodeJS.Signals>;
  /** Resolves once its output matches `pattern`; rejects when it exits first or the deadline passes. */
  printed(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** SIGTERM (Ctrl+C's stop), then waits for its exit. */
  stop(): Promise<number | NodeJS.Signals>;
}

/** Spawns `node scripts/start.mjs` (what `npm start` runs) with `env` over a shell's environment. */
export function spawnStart(env: Record<string, string>): StartProcess {
  const child = spawn(process.execPath, ['scripts/start.mjs'], { cwd: ROOT, env: { ...shellEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | NodeJS.Signals>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code ?? 1)));
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    child,
    pid: child.pid!,
    output: () => output,
    exited,
    printed: async (pattern, timeoutMs = 90_000) => {
      // An exit is an answer at once (GiveUp), not a probe failure to retry until the deadline.
      await waitFor(
        async () => {
          if (pattern.test(output)) return true;
          if (gone()) throw new GiveUp(`npm start exited before printing ${pattern}:\n${output}`);
          return false;
        },
        { timeoutMs, what: `npm start to print ${pattern}` },
      ).catch((error: unknown) => {
        throw error instanceof GiveUp ? error : new Error(`npm start did not print ${pattern} within ${timeoutMs} ms:\n${output}`);
      });
    },
    stop: async () => {
      if (!gone()) child.kill('SIGTERM');
      return exited;
    },
  };
}
