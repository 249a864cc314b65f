import { useEffect, useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useParams } from 'wouter';
import { api, ApiError, errorText, wsPath } from '../api';
import { IssueList } from '../components/issue-list';
import { CaseLabel } from '../evals/case-label';
import { caseOfDraft, draftOfCase, draftOfFact, type CaseDraft } from '../evals/case-draft';
import { useSuite } from '../evals/eval-queries';
import { useWorkspace } from '../session';
import type { EvalSuite, ValidationIssue } from '../types';

/** The fact ids the events page handed over (`?facts=a,b`). */
const pickedFacts = () => (new URLSearchParams(window.location.search).get('facts') ?? '').split(',').filter(Boolean);

/**
 * A suite's cases and their expectations (decision 0058): a new suite from
 * the facts picked on the events page, or the next version of a saved one.
 * A viewer reads it.
 */
export function EvalSuiteEditPage() {
  const params = useParams<{ id?: string }>();
  const id = params.id === 'new' ? undefined : params.id;
  const { slug, role } = useWorkspace();
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const suite = useSuite(slug, id);
  const [name, setName] = useState('');
  const [cases, setCases] = useState<CaseDraft[] | undefined>(id ? undefined : () => pickedFacts().map(draftOfFact));
  const [addId, setAddId] = useState('');
  const [issues, setIssues] = useState<ValidationIssue[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [saved, setSaved] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const readOnly = role === 'viewer';
  // The saved suite fills the form once (a save sets it again from the answer).
  useEffect(() => {
    if (suite.data && cases === undefined) {
      setName(suite.data.name);
      setCases(suite.data.cases.map(draftOfCase));
    }
  }, [suite.data, cases]);

  if (suite.error) return <p role="alert" className="error">{errorText(suite.error)}</p>;
  if (!cases) return <p className="loading">Loading…</p>;
  const update = (index: number, patch: Partial<CaseDraft>) => setCases(cases.map((c, i) => (i === index ? { ...c, ...patch } : c)));

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    setIssues([]);
    setSaved(undefined);
    let body;
    try {
      body = { name, cases: cases.map(caseOfDraft) };
    } catch (caught) {
      return setError((caught as Error).message);
    }
    setBusy(true);
    try {
      const result = await api<EvalSuite>(id ? 'PUT' : 'POST', wsPath(slug, id ? `/eval-suites/${id}` : '/eval-suites'), body);
      void queryClient.invalidateQueries({ queryKey: ['eval-suites', slug] });
      queryClient.setQueryData(['eval-suite', slug, result.id, 'latest'], result);
      setSaved(`Saved as v${result.version}.`);
      if (!id) navigate(`/eval-suites/${result.id}`);
    } catch (caught) {
      setError(errorText(caught));
      if (caught instanceof ApiError) setIssues(caught.issues);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section>
      <div className="page-head">
        <h1>{id ? (suite.data?.name ?? 'Suite') : 'New eval suite'}</h1>
        {suite.data && <span className="muted" data-testid="suite-version">v{suite.data.version}</span>}
        <Link href="/eval-suites">All suites</Link>
      </div>
      {!id && cases.length === 0 && (
        <p className="muted">
          Pick facts on the <Link href="/events">events page</Link> (the boxes on their rows), or add a recorded fact by its id below.
        </p>
      )}
      <form onSubmit={save} aria-label="eval suite">
        <fieldset disabled={readOnly || busy} className="suite-form">
          <label>
            Name
            <input name="name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
          </label>
          {cases.map((c, index) => (
            <fieldset key={index} className="eval-case" data-testid={`case-${index}`}>
              <legend>
                <CaseLabel ws={slug} index={index} c={caseOfDraftLoose(c)} />
              </legend>
              <div className="case-grid">
                <label>
                  Would call (a tool a line; JSON arguments after it)
                  <textarea rows={2} value={c.wouldCall} onChange={(e) => update(index, { wouldCall: e.target.value })} placeholder='platform.emit_event {"kind": "ticket.triaged"}' />
                </label>
                <label>
                  Must not call (a tool a line)
                  <textarea rows={2} value={c.wouldNotCall} onChange={(e) => update(index, { wouldNotCall: e.target.value })} placeholder="web.echo" />
                </label>
                <label>
                  Status
                  <select value={c.status} onChange={(e) => update(index, { status: e.target.value as CaseDraft['status'] })}>
                    <option value="">any</option>
                    <option value="completed">completed</option>
                    <option value="failed">failed</option>
                    <option value="cancelled">cancelled</option>
                  </select>
                </label>
                <label>
                  Summary includes
                  <input value={c.summaryIncludes} onChange={(e) => update(index, { summaryIncludes: e.target.value })} />
                </label>
                <label>
                  Max tokens
                  <input inputMode="numeric" value={c.maxTokens} onChange={(e) => update(index, { maxTokens: e.target.value })} />
                </label>
                <label>
                  Max cost (USD)
                  <input inputMode="decimal" value={c.maxCostUsd} onChange={(e) => update(index, { maxCostUsd: e.target.value })} />
                </label>
                <label>
                  Judge model (optional)
                  <input value={c.judgeModel} onChange={(e) => update(index, { judgeModel: e.target.value })} />
                </label>
                <label>
                  Judge rubric
                  <textarea rows={2} value={c.judgeRubric} onChange={(e) => update(index, { judgeRubric: e.target.value })} />
                </label>
              </div>
              {!readOnly && (
                <button type="button" onClick={() => setCases(cases.filter((_, i) => i !== index))} aria-label={`remove case ${index}`}>
                  Remove
                </button>
              )}
            </fieldset>
          ))}
          {!readOnly && (
            <div className="row">
              <label>
                Add a recorded fact by id
                <input value={addId} onChange={(e) => setAddId(e.target.value)} />
              </label>
              <button
                type="button"
                onClick={() => {
                  if (!addId.trim()) return;
                  setCases([...cases, draftOfFact(addId.trim())]);
                  setAddId('');
                }}
              >
                Add case
              </button>
            </div>
          )}
          {!readOnly && (
            <button type="submit" disabled={cases.length === 0 || !name.trim()}>
              {id ? 'Save next version' : 'Create suite'}
            </button>
          )}
        </fieldset>
      </form>
      {error && <p role="alert" className="error">{error}</p>}
      <IssueList issues={issues} testId="suite-issues" />
      {saved && <p role="status" className="ok">{saved}</p>}
    </section>
  );
}

/** The case a draft stands for, as far as its label needs (the fact). */
const caseOfDraftLoose = (d: CaseDraft) => ({ ...(d.factId !== undefined ? { factId: d.factId } : { fact: d.fact! }), expect: {} });
