import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '../../..');
jest.setTimeout(600_000);

/** Runs the harness as `npm run pilot:awareness` does, on its own platform processes; returns its JSON report. */
async function pilot(extra: string[]): Promise<any> {
  const out = mkdtempSync(path.join(tmpdir(), 'sy-pilot-'));
  try {
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/pilot/main.ts', '--tasks', 'pilot/tasks.json', '--model', 'scripted', '--out', out, ...extra], { cwd: ROOT, env: process.env, maxBuffer: 16 * 1024 * 1024 });
    expect(readFileSync(path.join(out, 'awareness-pilot.md'), 'utf8')).toContain('# Awareness pilot report (ADR 0002)');
    return JSON.parse(readFileSync(path.join(out, 'awareness-pilot.json'), 'utf8'));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * Issue 34 §7: `npm run pilot:awareness` with the scripted model runs the 30
 * preregistered tasks end to end and writes its report with every gate of
 * ADR 0002; an injected duplicate storm makes the duplicates gate fail.
 */
describe('issue 34: the awareness pilot harness', () => {
  it('writes the report: 30 runs, half of each class aware by the seed, every gate computed, a decision', async () => {
    const report = await pilot(['--seed', '34']);
    expect(report.runs).toHaveLength(30);
    for (const c of ['qa', 'debug', 'impl']) expect(report.runs.filter((r: any) => r.taskClass === c && r.aware)).toHaveLength(5);
    expect(report.decision.gates.map((g: any) => g.name)).toEqual([
      'command interruptions',
      'authority elevation',
      'secret persistence',
      'message-caused unverified landings',
      'unique-message delivery',
      'p95 observation (ms)',
      'duplicate observations',
      'added tokens',
      'wall-clock overhead',
    ]);
    expect(report.decision.gates.find((g: any) => g.name === 'duplicate observations').pass).toBe(true);
    expect(report.decision.gates.find((g: any) => g.name === 'unique-message delivery').value).toBe(1);
    expect(['proceed', 'stop']).toContain(report.decision.decision);
    // The scripted answers are deterministic: the same tasks pass and fail on every run.
    expect(report.runs.filter((r: any) => !r.verified).map((r: any) => r.taskId).sort()).toEqual(['debug-04', 'debug-08', 'impl-04', 'impl-08', 'qa-04', 'qa-08']);
  });

  it('a duplicate storm makes the duplicates gate fail, and the pilot stops', async () => {
    const report = await pilot(['--duplicate-storm']);
    const duplicates = report.decision.gates.find((g: any) => g.name === 'duplicate observations');
    expect(duplicates.pass).toBe(false);
    expect(duplicates.value).toBeGreaterThanOrEqual(3);
    expect(report.decision.decision).toBe('stop');
    expect(report.decision.reasons).toContain('gate failed: duplicate observations');
  });
});
