import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startLocalOpenAiServer, type LocalOpenAiRequest } from '@switchyard/testing';

const ROOT = path.resolve(__dirname, '../../..');
jest.setTimeout(600_000);

/** Runs the harness as `npm run pilot:awareness` does, on its own platform processes; returns its JSON report. */
async function pilot(extra: string[], env: Record<string, string> = {}): Promise<any> {
  const out = mkdtempSync(path.join(tmpdir(), 'sy-pilot-'));
  try {
    const args = extra.includes('--model') ? extra : ['--model', 'scripted', ...extra];
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/pilot/main.ts', '--tasks', 'pilot/tasks.json', '--out', out, ...args], { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 });
    expect(readFileSync(path.join(out, 'awareness-pilot.md'), 'utf8')).toContain('# Awareness pilot report (ADR 0002)');
    expect(readFileSync(path.join(out, 'awareness-pilot.md'), 'utf8')).toContain('- Not evaluated: cross-host delivery');
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

  it('runs against an OpenAI-compatible endpoint by URL: the real client, usage counted, digests apart', async () => {
    // A stand-in model: a lookup first, then an answer that quotes the peer notes it was shown, if any.
    const model = await startLocalOpenAiServer({
      respond: (request: LocalOpenAiRequest) => {
        const messages = request.body?.messages ?? [];
        if (!messages.some((m) => m.role === 'tool')) return { type: 'message', toolCalls: [{ id: 'lookup', name: 'pilot_lookup', arguments: {} }], usage: { prompt_tokens: 200, completion_tokens: 5 } };
        const digest = messages.find((m) => m.role === 'user' && String(m.content).startsWith('[peer notes'));
        const quoted = digest ? /: (Peer claim for [^\n]*)/.exec(String(digest.content))?.[1] : undefined;
        return { type: 'message', content: `Answer: ${quoted ?? 'I could not tell.'}`, usage: { prompt_tokens: 400, completion_tokens: 20 } };
      },
    });
    try {
      const report = await pilot(['--model', model.baseUrl], { RUNNER_MODEL_ALLOW_PRIVATE: 'true' });
      expect(report.model).toBe(model.baseUrl);
      expect(report.runs).toHaveLength(30);
      expect(report.runs.every((r: any) => r.status === 'completed' && r.tokensIn === 600)).toBe(true);
      expect(model.requests.length).toBe(60);
      const tokens = report.decision.gates.find((g: any) => g.name === 'added tokens');
      const added = report.runs.reduce((n: number, r: any) => n + r.addedTokens, 0);
      expect(tokens.value).toBeCloseTo(added / report.runs.filter((r: any) => r.aware).reduce((n: number, r: any) => n + r.tokensIn, 0));
      expect(report.runs.filter((r: any) => !r.aware).every((r: any) => r.addedTokens === 0 && r.surfaced.length === 0)).toBe(true);
    } finally {
      await model.close();
    }
  });
});
