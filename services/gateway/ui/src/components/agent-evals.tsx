import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useLocation } from 'wouter';
import { api, ApiError, errorText, wsPath } from '../api';
import { useAgentEvals, useEvalGate, useSuites } from '../evals/eval-queries';
import { shortId, when } from '../format';
import type { AgentResponse, AgentVersionSummary, EvalRun, ValidationIssue } from '../types';
import { IssueList } from './issue-list';

const targets = (run: EvalRun) => run.targets.map((t) => (t.version === null ? 'draft' : `v${t.version}`)).join(' → ');
const outcome = (run: EvalRun) =>
  !run.result ? `${run.trialsEnded} / ${run.trialsTotal} trials` : run.result.diff ? `${run.result.diff.verdict}${run.result.passed ? '' : ' (fails)'}` : run.result.passed ? 'passes' : 'fails';

/**
 * Evals on the agent's page (decision 0058): the promotion gate of the
 * version that runs (configured or not, the eval that counts, allowed or
 * blocked), a form to start an eval (member), and the agent's eval runs.
 */
export function AgentEvals({ ws, agent, versions, draft, canWrite }: { ws: string; agent: AgentResponse; versions: AgentVersionSummary[]; draft: string | undefined; canWrite: boolean }) {
  const gate = useEvalGate(ws, agent.id);
  const evals = useAgentEvals(ws, agent.id);
  const suites = useSuites(ws);
  const gateSuite = suites.data?.find((s) => s.id === gate.data?.gate?.suite);
  return (
    <>
      <h2 id="evals">Evals</h2>
      <div data-testid="eval-gate" className="eval-gate">
        {gate.error && <p role="alert" className="error">{errorText(gate.error)}</p>}
        {gate.data && !gate.data.gate && <p className="muted">No eval gate: enabling or pinning a version needs no eval (set <code>evalGate</code> in the spec).</p>}
        {gate.data?.gate && (
          <p>
            Eval gate: suite <Link href={`/eval-suites/${gate.data.gate.suite}`}>{gateSuite?.name ?? shortId(gate.data.gate.suite)}</Link>, at least {gate.data.gate.trials} trials
            {gate.data.gate.allowRegression ? ', regressions allowed' : ''}. v{gate.data.version}:{' '}
            <strong data-testid="gate-state" className={gate.data.allowed ? 'ok' : 'error'}>
              {gate.data.allowed ? 'allowed' : 'blocked'}
            </strong>{' '}
            {gate.data.evalId ? (
              <>
                by <Link href={`/evals/${gate.data.evalId}`}>eval {shortId(gate.data.evalId)}</Link>
                {gate.data.failingCases.length > 0 && <> (failing cases {gate.data.failingCases.map((c) => `#${c}`).join(', ')})</>}
              </>
            ) : (
              <span className="muted">(no completed eval of this version on the gate suite)</span>
            )}
          </p>
        )}
      </div>
      {canWrite ? <StartEval ws={ws} agent={agent} versions={versions} draft={draft} /> : <p className="muted">A viewer sees evals but cannot start one.</p>}
      {evals.error && <p role="alert" className="error">{errorText(evals.error)}</p>}
      {evals.data && evals.data.length > 0 && (
        <div className="table-wrap">
          <table data-testid="agent-evals">
            <thead>
              <tr>
                <th>Eval</th>
                <th>Versions</th>
                <th>Outcome</th>
                <th className="hide-narrow">Started</th>
              </tr>
            </thead>
            <tbody>
              {evals.data.map((run) => (
                <tr key={run.id}>
                  <td>
                    <Link href={`/evals/${run.id}`}>{shortId(run.id)}</Link>
                  </td>
                  <td>{targets(run)}</td>
                  <td>{outcome(run)}</td>
                  <td className="hide-narrow">{when(run.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** A refused budget names the ceiling it must reach (runs and judges), so the person knows what to raise it to. */
function budgetNeeded(caught: unknown): string {
  if (!(caught instanceof ApiError) || caught.code !== 'EVAL_BUDGET_EXCEEDED') return '';
  const { estimateUsd, judgeEstimateUsd } = (caught.details ?? {}) as { estimateUsd?: number; judgeEstimateUsd?: number };
  if (typeof estimateUsd !== 'number') return '';
  return ` (the estimate is $${estimateUsd}${typeof judgeEstimateUsd === 'number' && judgeEstimateUsd > 0 ? `, of which judges $${judgeEstimateUsd}` : ''})`;
}

/** The form that starts an eval: a suite, what runs (versions A and B, one version, or the editor's draft), trials and a budget. */
function StartEval({ ws, agent, versions, draft }: { ws: string; agent: AgentResponse; versions: AgentVersionSummary[]; draft: string | undefined }) {
  const suites = useSuites(ws);
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const newest = versions.at(-1)?.version ?? agent.version;
  const [suite, setSuite] = useState('');
  const [a, setA] = useState(String(Math.max(1, newest - 1)));
  const [b, setB] = useState(newest > 1 ? String(newest) : '');
  const [trials, setTrials] = useState('5');
  const [budget, setBudget] = useState('1');
  const [error, setError] = useState<string | undefined>();
  const [issues, setIssues] = useState<ValidationIssue[]>([]);
  const [busy, setBusy] = useState(false);
  const chosenSuite = suite || suites.data?.[0]?.id || '';
  const versionOptions = versions.map((v) => (
    <option key={v.version} value={v.version}>
      v{v.version}
    </option>
  ));

  const start = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    setIssues([]);
    let what: Record<string, unknown>;
    if (b === 'draft') {
      try {
        what = { draft: JSON.parse(draft ?? '') };
      } catch {
        return setError('the draft in the editor is not JSON');
      }
    } else {
      what = { versions: b ? [Number(a), Number(b)] : [Number(a)] };
    }
    setBusy(true);
    try {
      const started = await api<{ id: string }>('POST', wsPath(ws, `/agents/${agent.id}/evals`), { suite: chosenSuite, ...what, trials: Number(trials), budgetUsd: Number(budget) });
      void queryClient.invalidateQueries({ queryKey: ['agent-evals', ws, agent.id] });
      navigate(`/evals/${started.id}`);
    } catch (caught) {
      setError(errorText(caught) + budgetNeeded(caught));
      if (caught instanceof ApiError) setIssues(caught.issues);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="filters" onSubmit={start} aria-label="start an eval">
      <label>
        Suite
        <select value={chosenSuite} onChange={(e) => setSuite(e.target.value)} required>
          {suites.data?.length === 0 && <option value="">no suite yet</option>}
          {suites.data?.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name} (v{s.version}, {s.cases.length} cases)
            </option>
          ))}
        </select>
      </label>
      <label>
        Version A
        <select value={a} onChange={(e) => setA(e.target.value)} disabled={b === 'draft'}>
          {versionOptions}
        </select>
      </label>
      <label>
        Against
        <select value={b} onChange={(e) => setB(e.target.value)}>
          <option value="">nothing (A alone)</option>
          {versionOptions}
          {draft !== undefined && <option value="draft">the editor's draft (against the version that runs)</option>}
        </select>
      </label>
      <label>
        Trials
        <input type="number" min={1} max={50} value={trials} onChange={(e) => setTrials(e.target.value)} />
      </label>
      <label>
        Budget (USD)
        <input type="number" min={0} step="any" value={budget} onChange={(e) => setBudget(e.target.value)} />
      </label>
      <button type="submit" disabled={busy || !chosenSuite}>
        Start eval
      </button>
      {error && <p role="alert" className="error">{error}</p>}
      <IssueList issues={issues} testId="eval-issues" />
    </form>
  );
}
