import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, errorText, wsPath } from '../api';
import { shortId, when } from '../format';
import type { AgentResponse, AgentTry, AgentVersionSummary, Fact, TryAgentResponse, ValidationIssue } from '../types';
import { IssueList } from './issue-list';
import { TryRun } from './try-run';

/** Recorded facts an agent's triggers match (the newest 50 of the first 500 per trigger kind), newest first. */
export function useTriggerFacts(ws: string, triggers: ReadonlyArray<{ kind: string }>) {
  const kinds = [...new Set(triggers.map((trigger) => trigger.kind))];
  return useQuery({
    queryKey: ['try-facts', ws, kinds],
    queryFn: async () => {
      const pages = await Promise.all(kinds.map((kind) => api<{ events: Fact[] }>('GET', wsPath(ws, `/events?kind=${encodeURIComponent(kind)}&limit=500`))));
      const byId = new Map(pages.flatMap((page) => page.events).map((fact) => [fact.id, fact]));
      return [...byId.values()].sort((a, b) => b.seq - a.seq).slice(0, 50);
    },
  });
}

/** The options of a recorded-fact select: each fact by seq, kind, subject and time, or a line saying there is none. */
export function FactOptions({ facts }: { facts: Fact[] | undefined }) {
  return (
    <>
      {facts?.length === 0 && <option value="">no fact matches its triggers yet</option>}
      {facts?.map((fact) => (
        <option key={fact.id} value={fact.id}>
          #{fact.seq} {fact.kind} {fact.subject.type}/{fact.subject.id} · {when(fact.ts)}
        </option>
      ))}
    </>
  );
}

/** A kind to start a hand-written fact with: the first trigger's, unless it is a glob. */
const suggestedKind = (agent: AgentResponse) => agent.spec.triggers.map((t) => t.kind).find((kind) => !kind.includes('*')) ?? '';

/**
 * Try-drive on an agent's page (decision 0027): run the saved version or the
 * draft in the editor once in shadow, on a recorded fact or one written here,
 * and watch it; the agent's earlier tries are listed below.
 */
export function TryPanel({ ws, agent, versions, draft }: { ws: string; agent: AgentResponse; versions: AgentVersionSummary[]; draft: string | undefined }) {
  const queryClient = useQueryClient();
  const [what, setWhat] = useState<'saved' | 'draft'>('saved');
  const [version, setVersion] = useState(agent.version);
  const [on, setOn] = useState<'recorded' | 'written'>('recorded');
  const [eventId, setEventId] = useState('');
  const [kind, setKind] = useState(() => suggestedKind(agent));
  const [subject, setSubject] = useState('');
  const [payload, setPayload] = useState('{}');
  const [issues, setIssues] = useState<ValidationIssue[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [selected, setSelected] = useState<string | undefined>();
  const facts = useTriggerFacts(ws, agent.spec.triggers);
  const tries = useQuery({
    queryKey: ['tries', ws, agent.id],
    queryFn: () => api<{ tries: AgentTry[] }>('GET', wsPath(ws, `/agents/${agent.id}/tries?limit=20`)).then((r) => r.tries),
    refetchInterval: 2_000,
  });
  const usingDraft = what === 'draft' && draft !== undefined;
  const chosenEvent = eventId || facts.data?.[0]?.id || '';

  const body = (): Record<string, unknown> => {
    const runs = usingDraft ? { spec: JSON.parse(draft) as unknown, agentId: agent.id } : { agentId: agent.id, version };
    if (on === 'recorded') return { ...runs, eventId: chosenEvent };
    const [type, ...id] = subject.split('/');
    return { ...runs, fact: { kind: kind.trim(), subject: { type: type ?? '', id: id.join('/') }, payload: JSON.parse(payload) as unknown } };
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setIssues([]);
    setError(undefined);
    let request: Record<string, unknown>;
    try {
      request = body();
    } catch (caught) {
      setError(`not JSON: ${(caught as Error).message}`);
      return;
    }
    setBusy(true);
    try {
      const tried = await api<TryAgentResponse>('POST', wsPath(ws, '/agents/try'), request);
      setSelected(tried.runId);
      void queryClient.invalidateQueries({ queryKey: ['tries', ws, agent.id] });
    } catch (caught) {
      if (caught instanceof ApiError && caught.issues.length > 0) setIssues(caught.issues);
      else setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="try" aria-label="try in shadow">
      <h2>Try in shadow</h2>
      <p className="hint">Nothing a try does reaches anything: writes and external tools are recorded as what it would have done; no fact is recorded.</p>
      <form className="try-form" onSubmit={submit}>
        <fieldset>
          <legend>Run</legend>
          <label className="inline">
            <input type="radio" name="what" checked={what === 'saved'} onChange={() => setWhat('saved')} /> the saved version
          </label>
          <select aria-label="version" value={version} onChange={(e) => setVersion(Number(e.target.value))} disabled={what !== 'saved'}>
            {[...versions].reverse().map((v) => (
              <option key={v.version} value={v.version}>
                v{v.version}
              </option>
            ))}
          </select>
          <label className="inline">
            <input type="radio" name="what" checked={what === 'draft'} onChange={() => setWhat('draft')} disabled={draft === undefined} /> the draft in the editor
            {draft === undefined && <span className="muted"> (open the editor)</span>}
          </label>
        </fieldset>
        <fieldset>
          <legend>On</legend>
          <label className="inline">
            <input type="radio" name="on" checked={on === 'recorded'} onChange={() => setOn('recorded')} /> a recorded fact
          </label>
          <select aria-label="recorded fact" value={chosenEvent} onChange={(e) => setEventId(e.target.value)} disabled={on !== 'recorded'}>
            <FactOptions facts={facts.data} />
          </select>
          <label className="inline">
            <input type="radio" name="on" checked={on === 'written'} onChange={() => setOn('written')} /> a fact written here
          </label>
          {on === 'written' && (
            <div className="written-fact">
              <label>
                Kind
                <input value={kind} onChange={(e) => setKind(e.target.value)} placeholder="ticket.opened" />
              </label>
              <label>
                Subject (type/id)
                <input value={subject} onChange={(e) => setSubject(e.target.value)} placeholder="ticket/T-1" />
              </label>
              <label>
                Payload (JSON)
                <textarea value={payload} onChange={(e) => setPayload(e.target.value)} rows={3} spellCheck={false} />
              </label>
            </div>
          )}
        </fieldset>
        <button type="submit" disabled={busy}>
          Try in shadow
        </button>
      </form>
      {error && <p role="alert" className="error">{error}</p>}
      <IssueList issues={issues} testId="try-issues" />
      {selected && <TryRun key={selected} ws={ws} runId={selected} />}
      <h3>Tries</h3>
      <table data-testid="tries">
        <thead>
          <tr>
            <th>Run</th>
            <th>Ran</th>
            <th>Status</th>
            <th>Queued</th>
          </tr>
        </thead>
        <tbody>
          {tries.data?.map((t) => (
            <tr key={t.run.id} data-run-id={t.run.id} aria-selected={t.run.id === selected}>
              <td>
                <button type="button" className="link" onClick={() => setSelected(t.run.id)}>
                  {shortId(t.run.id)}
                </button>
              </td>
              <td>{t.version === null ? 'draft' : `v${t.version}`}</td>
              <td>
                <span className={`status s-${t.run.status}`}>{t.run.status}</span>
              </td>
              <td>{when(t.run.queuedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {tries.data?.length === 0 && <p className="muted">No tries yet.</p>}
    </section>
  );
}
