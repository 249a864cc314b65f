import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import { api, errorText, wsPath } from '../api';
import { CaseLabel } from '../evals/case-label';
import { trialKey, useEvalStream, useSuite } from '../evals/eval-queries';
import { shortId, usd, when } from '../format';
import { useAgents } from '../queries';
import { useWorkspace } from '../session';
import type { EvalRun, EvalTrialEvent } from '../types';

/** A trial as this page shows it: from the settled result (with the judge), else from the stream (checks only). */
interface ShownTrial {
  caseIndex: number;
  target: number;
  trial: number;
  runId: string;
  status: string;
  passed: boolean | null;
  failures: string[];
  judgeReason: string | null;
  tokens: number;
  costUsd: number;
  durationMs: number;
}

const targetName = (t: { version: number | null }) => (t.version === null ? 'draft' : `v${t.version}`);
const pct = (rate: number | undefined) => (rate === undefined ? '–' : `${Math.round(rate * 100)}%`);
const ms = (n: number) => (n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(1)} s`);

function shownTrials(run: EvalRun, live: Map<string, EvalTrialEvent>): ShownTrial[] {
  if (run.result) {
    return run.result.cases.flatMap((c) =>
      c.trials.map((t) => ({ ...t, caseIndex: c.caseIndex, judgeReason: t.judge?.reason ?? null })),
    );
  }
  return [...live.values()].map((t) => ({ ...t, passed: t.judgePending ? (t.checksPassed ? null : false) : t.checksPassed, judgeReason: null }));
}

/**
 * An eval run (decision 0058): its progress, streamed while it runs (each
 * trial as its run ends), then per case and version the pass rates, the
 * trials with their failures and the judge's reasons, tokens, cost and
 * duration, the diff of B against A (Fisher exact, BH q-values, the cases
 * that changed) and the verdict with the cases that drove it.
 */
export function EvalRunPage() {
  const { id } = useParams<{ id: string }>();
  const { slug } = useWorkspace();
  const run = useQuery({ queryKey: ['eval', slug, id], queryFn: () => api<EvalRun>('GET', wsPath(slug, `/evals/${id}`)) });
  const running = run.data?.status === 'running';
  const stream = useEvalStream(slug, id, running);
  const suite = useSuite(slug, run.data?.suite.id, run.data?.suite.version);
  const agents = useAgents(slug);
  if (run.error) return <p role="alert" className="error">{errorText(run.error)}</p>;
  if (!run.data) return <p className="loading">Loading…</p>;
  const r = run.data;
  const agent = agents.data?.find((a) => a.id === r.agentId);
  const trials = shownTrials(r, stream.trials);
  const ended = r.result ? r.trialsTotal : Math.max(r.trialsEnded, stream.trials.size);
  const caseCount = suite.data?.cases.length ?? r.result?.cases.length ?? 0;
  const diffOf = (caseIndex: number) => r.result?.diff?.cases.find((c) => c.caseIndex === caseIndex);
  const liveRate = (caseIndex: number, target: number) => {
    const mine = trials.filter((t) => t.caseIndex === caseIndex && t.target === target && t.passed !== null);
    return mine.length === 0 ? undefined : mine.filter((t) => t.passed).length / mine.length;
  };
  const totals = trials.reduce((sum, t) => ({ tokens: sum.tokens + t.tokens, costUsd: sum.costUsd + t.costUsd, durationMs: sum.durationMs + t.durationMs }), { tokens: 0, costUsd: 0, durationMs: 0 });

  return (
    <section>
      <div className="page-head">
        <h1>Eval {shortId(r.id)}</h1>
        <span className={`status ${r.status === 'completed' ? 's-completed' : 's-running'}`} data-testid="eval-status">
          {r.status}
        </span>
        {running && <span className={`live live-${stream.status === 'ended' ? 'live' : stream.status}`}>{stream.status}</span>}
      </div>
      <dl className="facts-grid">
        <dt>Agent</dt>
        <dd>{agent ? <Link href={`/agents/${r.agentId}`}>{agent.spec.name}</Link> : shortId(r.agentId)}</dd>
        <dt>Suite</dt>
        <dd>
          <Link href={`/eval-suites/${r.suite.id}`}>{suite.data?.name ?? shortId(r.suite.id)}</Link> v{r.suite.version}
        </dd>
        <dt>Versions</dt>
        <dd>{r.targets.map(targetName).join(' → ')}</dd>
        <dt>Trials</dt>
        <dd data-testid="eval-progress">
          {ended} / {r.trialsTotal} ended ({r.trials} per case per version)
        </dd>
        <dt>Budget</dt>
        <dd>
          {usd(r.budgetUsd)} (ceiling estimate {usd(r.estimateUsd)})
        </dd>
        <dt>Spent</dt>
        <dd data-testid="eval-spent">
          {totals.tokens} tokens · {usd(r.result?.costUsd ?? totals.costUsd)}
          {r.result && r.result.judgeCostUsd > 0 && ` (judges ${usd(r.result.judgeCostUsd)})`} · {ms(totals.durationMs)} of runs
        </dd>
        <dt>Started</dt>
        <dd>{when(r.createdAt)}</dd>
      </dl>
      {r.result && <Verdict run={r} />}
      <h2>Cases</h2>
      <div className="table-wrap">
        <table data-testid="eval-cases">
          <thead>
            <tr>
              <th>Case</th>
              {r.targets.map((t, i) => (
                <th key={i}>{targetName(t)}</th>
              ))}
              {r.targets.length === 2 && (
                <>
                  <th className="hide-narrow">p</th>
                  <th className="hide-narrow">q (BH)</th>
                  <th>Change</th>
                </>
              )}
            </tr>
          </thead>
          <tbody>
            {Array.from({ length: caseCount }, (_, caseIndex) => {
              const d = diffOf(caseIndex);
              return (
                <tr key={caseIndex} data-testid={`eval-case-${caseIndex}`} className={d?.changed ? `changed-${d.direction}` : undefined}>
                  <td>
                    <CaseLabel ws={slug} index={caseIndex} c={suite.data?.cases[caseIndex]} />
                  </td>
                  {r.targets.map((_, target) => (
                    <td key={target}>
                      <span data-testid={`rate-${caseIndex}-${target}`}>{pct(r.result?.cases[caseIndex]?.passRates[target] ?? liveRate(caseIndex, target))}</span>{' '}
                      <TrialMarks trials={trials.filter((t) => t.caseIndex === caseIndex && t.target === target)} />
                    </td>
                  ))}
                  {r.targets.length === 2 && (
                    <>
                      <td className="hide-narrow">{d ? d.pValue.toFixed(3) : ''}</td>
                      <td className="hide-narrow">{d ? d.qValue.toFixed(3) : ''}</td>
                      <td>{d ? (d.changed ? <strong>{d.direction}</strong> : 'same') : ''}</td>
                    </>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <h2>Trials</h2>
      <div className="table-wrap">
        <table data-testid="eval-trials">
          <thead>
            <tr>
              <th>Case</th>
              <th>Version</th>
              <th className="c-num">Trial</th>
              <th>Result</th>
              <th>Why</th>
              <th className="hide-narrow">Tokens</th>
              <th className="hide-narrow">Cost</th>
              <th className="hide-narrow">Duration</th>
            </tr>
          </thead>
          <tbody>
            {[...trials]
              .sort((a, b) => a.caseIndex - b.caseIndex || a.target - b.target || a.trial - b.trial)
              .map((t) => (
                <tr key={trialKey(t)} data-testid={`trial-${trialKey(t)}`}>
                  <td>#{t.caseIndex}</td>
                  <td>{targetName(r.targets[t.target] ?? { version: null })}</td>
                  <td>
                    <Link href={`/runs/${t.runId}`}>{t.trial + 1}</Link>
                  </td>
                  <td className={t.passed === null ? 'muted' : t.passed ? 'ok' : 'error'}>{t.passed === null ? 'judge pending' : t.passed ? 'pass' : 'fail'}</td>
                  <td className="reason" title={[...t.failures, ...(t.judgeReason ? [`judge: ${t.judgeReason}`] : [])].join('; ')}>
                    {t.failures.join('; ')}
                    {t.judgeReason && <span data-testid="judge-reason"> judge: {t.judgeReason}</span>}
                  </td>
                  <td className="hide-narrow">{t.tokens}</td>
                  <td className="hide-narrow">{usd(t.costUsd)}</td>
                  <td className="hide-narrow">{ms(t.durationMs)}</td>
                </tr>
              ))}
          </tbody>
        </table>
        {trials.length === 0 && <p className="muted">No trial has ended yet.</p>}
      </div>
    </section>
  );
}

/** ✓ and ✗ per trial, in trial order (a trial not ended yet is not shown). */
function TrialMarks({ trials }: { trials: ShownTrial[] }) {
  return (
    <span className="trial-marks" aria-hidden="true">
      {[...trials]
        .sort((a, b) => a.trial - b.trial)
        .map((t) => (
          <span key={t.trial} className={t.passed === null ? 'muted' : t.passed ? 'ok' : 'error'}>
            {t.passed === null ? '·' : t.passed ? '✓' : '✗'}
          </span>
        ))}
    </span>
  );
}

/** The verdict of B against A (or of the only version), the cases that drove it, and whether the candidate passes the gate. */
function Verdict({ run }: { run: EvalRun }) {
  const result = run.result!;
  const diff = result.diff;
  return (
    <div className={`verdict ${result.passed ? 'verdict-pass' : 'verdict-fail'}`} data-testid="eval-verdict" role="status">
      {diff ? (
        <p>
          <strong>{diff.verdict}</strong>: {targetName(run.targets[1]!)} against {targetName(run.targets[0]!)}
          {diff.drivers.length > 0 && <> — driven by case{diff.drivers.length > 1 ? 's' : ''} {diff.drivers.map((c) => `#${c}`).join(', ')}</>}
          <span className="muted"> (noise floor {pct(diff.noiseFloor)}; a case changes when q &lt; 0.05 and the difference is at least 20 points and the noise floor)</span>
        </p>
      ) : (
        <p>
          <strong>{result.passed ? 'passes' : 'fails'}</strong>: {targetName(run.targets[0]!)} alone (a case passes when most of its trials pass)
        </p>
      )}
      <p data-testid="eval-candidate">
        The candidate {result.passed ? 'passes' : 'does not pass'}
        {result.failingCases.length > 0 && <>: failing cases {result.failingCases.map((c) => `#${c}`).join(', ')}</>}.
      </p>
    </div>
  );
}
