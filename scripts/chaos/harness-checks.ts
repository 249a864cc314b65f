import type { KillRecord } from './kills';
import type { PlannedKill } from './kill-plan';
import type { UnexpectedExit } from './mesh';
import { type CheckResult, zeroCheck } from './rows';

/** The mesh went quiet (nothing queued or running, every stream consumed) within the timeout. */
export function checkQuiescence(tookMs: number | undefined, timeoutMs: number): CheckResult {
  return {
    name: 'quiescence reached',
    expected: `within ${Math.round(timeoutMs / 1000)} s`,
    found: tookMs === undefined ? 'not reached' : `after ${(tookMs / 1000).toFixed(1)} s`,
    pass: tookMs !== undefined,
  };
}

/** Every planned kill was done and its target came back; a PostgreSQL kill the server refused is skipped, not failed. */
export function checkKills(plan: readonly PlannedKill[], done: readonly KillRecord[]): CheckResult {
  const failed = done.filter((kill) => !kill.ok && !kill.note?.startsWith('skipped'));
  const skipped = done.filter((kill) => kill.note?.startsWith('skipped')).length;
  return {
    name: 'kills done and recovered',
    expected: `${plan.length}`,
    found: `${done.length - failed.length - skipped} done, ${skipped} skipped, ${failed.length} failed${failed.length ? ` (${failed.map((k) => `${k.target}: ${k.note}`).join('; ')})` : ''}`,
    pass: done.length === plan.length && failed.length === 0,
  };
}

/** No service exited unless the harness killed it (a crash is a finding). */
export function checkNoCrash(exits: readonly UnexpectedExit[]): CheckResult {
  return zeroCheck('no service exited by itself', exits.length, 'exits', exits.map((e) => `${e.slot} ${String(e.exit)}`));
}

/** Nothing was dead-lettered (every entry of `ingest` and `facts` was handled). */
export function checkNoDeadLetters(deadLetters: number): CheckResult {
  return zeroCheck('no dead letters', deadLetters, 'dead letters');
}
