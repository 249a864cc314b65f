import { useEffect, useRef, useState, type FormEvent } from 'react';
import { flushSync } from 'react-dom';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useParams } from 'wouter';
import { api, ApiError, apiStream, errorText, wsPath } from '../api';
import { CraftCanvas, type CraftDraft } from '../components/craft-canvas';
import { IssueList } from '../components/issue-list';
import { FactOptions, useTriggerFacts } from '../components/try-panel';
import { TryRun } from '../components/try-run';
import { useWorkspace } from '../session';
import type { AgentResponse, CraftEvent, TryAgentResponse, ValidationIssue } from '../types';

/** A new draft starts valid, so every patch is judged against a whole spec. */
const STARTER: CraftDraft = {
  name: 'new-agent',
  description: '',
  instructions: 'Describe what this agent does.',
  task: '',
  model: { provider: 'openai', name: 'gpt-4.1-mini' },
  triggers: [{ kind: 'example.happened' }],
  permissionMode: 'default',
  budget: { perRunUsd: 1, perDayUsd: 20, maxTurns: 25 },
  flow: { concurrency: 1, cooldownMs: 0, queueCap: 100, debounceMs: 0, priority: 0 },
} as CraftDraft;

/** One line of the chat: the person's message, or one event of the crafting agent's answer. */
type ChatLine = { who: 'person'; text: string } | { who: 'agent'; event: CraftEvent };

function AgentLine({ ws, event }: { ws: string; event: CraftEvent }) {
  switch (event.type) {
    case 'say':
      return <p className="craft-say">{event.text}</p>;
    case 'patch':
      return (
        <p className="craft-patch" data-testid="craft-patch">
          changed {event.patch.map((op) => `${op.op} ${op.path}`).join(', ')}
        </p>
      );
    case 'patch_refused':
      return (
        <p className="craft-refused" data-testid="craft-patch-refused">
          patch refused: {event.code} — {event.message}
        </p>
      );
    case 'try':
      return <TryRun ws={ws} runId={event.runId} />;
    case 'try_refused':
      return <p className="craft-refused">try not started: {event.code} — {event.message}</p>;
    case 'error':
      return (
        <p role="alert" className="error">
          {event.code}: {event.message}
        </p>
      );
    case 'started':
      return (
        <p className="muted craft-turn">
          turn <Link href={`/runs/${event.runId}`} data-testid="craft-run">{event.runId.slice(0, 8)}</Link> of the crafting conversation
        </p>
      );
    case 'done':
      return null;
  }
}

/** A try of the canvas on one of the recent facts its triggers match, picked by hand. */
function ReplayTry({ ws, draft, agentId, onTried }: { ws: string; draft: CraftDraft; agentId: string | undefined; onTried: (tried: TryAgentResponse) => void }) {
  const facts = useTriggerFacts(ws, draft.triggers.filter((t) => t.kind));
  const [eventId, setEventId] = useState('');
  const [runId, setRunId] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const chosen = eventId || facts.data?.[0]?.id || '';
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      const tried = await api<TryAgentResponse>('POST', wsPath(ws, '/agents/try'), { spec: draft, eventId: chosen, ...(agentId ? { agentId } : {}) });
      setRunId(tried.runId);
      onTried(tried);
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  return (
    <section className="craft-replay" aria-label="replay try">
      <h2>Replay a recent fact</h2>
      <form className="row" onSubmit={submit}>
        <select aria-label="recent fact" value={chosen} onChange={(e) => setEventId(e.target.value)}>
          <FactOptions facts={facts.data} />
        </select>
        <button type="submit" disabled={!chosen}>
          Try the canvas
        </button>
      </form>
      {error && <p role="alert" className="error">{error}</p>}
      {runId && <TryRun ws={ws} runId={runId} />}
    </section>
  );
}

/**
 * Conversational crafting (decision 0056), `/agents/craft` and
 * `/agents/{id}/craft`: the canvas on the left, the chat with the crafting
 * agent on the right. Each message goes with the canvas as it stands (hand
 * edits included); the answer's patches are applied to the canvas as they
 * stream. Save is the API's own create or update (a new version).
 */
export function AgentCraftPage() {
  const { slug } = useWorkspace();
  const params = useParams<{ id?: string }>();
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const saved = useQuery({ queryKey: ['agent', slug, params.id], queryFn: () => api<AgentResponse>('GET', wsPath(slug, `/agents/${params.id}`)), enabled: params.id !== undefined });
  const [draft, setDraft] = useState<CraftDraft | undefined>(params.id ? undefined : STARTER);
  const [draftId, setDraftId] = useState<string | undefined>(params.id);
  const [lines, setLines] = useState<ChatLine[]>([]);
  // The conversation is the crafting runs' session (decision 0056): its transcript keeps what was said.
  const [sessionId, setSessionId] = useState<string | undefined>();
  const [message, setMessage] = useState('');
  const [patches, setPatches] = useState(0);
  const [changedPaths, setChangedPaths] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [issues, setIssues] = useState<ValidationIssue[]>([]);
  const [error, setError] = useState<string | undefined>();
  // Leaving the page stops following the answer; the turn goes on and stays in the conversation's transcript.
  const answering = useRef<AbortController | null>(null);
  useEffect(() => () => answering.current?.abort(), []);

  useEffect(() => {
    if (saved.data && draft === undefined) {
      const { enabled: _enabled, ...spec } = saved.data.spec;
      setDraft(spec);
    }
  }, [saved.data, draft]);

  const send = async (event: FormEvent) => {
    event.preventDefault();
    if (!draft || !message.trim()) return;
    const text = message.trim();
    setMessage('');
    setIssues([]);
    setError(undefined);
    setBusy(true);
    setLines((l) => [...l, { who: 'person', text }]);
    answering.current = new AbortController();
    try {
      await apiStream(wsPath(slug, '/agents/craft'), { message: text, draft, ...(sessionId ? { sessionId } : {}), ...(draftId ? { agentId: draftId } : {}) }, (raw) => {
        const craft = raw as CraftEvent;
        // A patch is drawn at once, not when the scheduler next runs: the canvas is what the person watches.
        if (craft.type === 'patch') {
          flushSync(() => {
            setDraft(craft.draft);
            setPatches((n) => n + 1);
            setChangedPaths(craft.patch.map((op) => op.path));
          });
        }
        if (craft.type === 'try') setDraftId(craft.agentId);
        if (craft.type === 'started') setSessionId(craft.sessionId);
        setLines((l) => [...l, { who: 'agent', event: craft }]);
      }, answering.current.signal);
    } catch (caught) {
      if (answering.current?.signal.aborted) return;
      if (caught instanceof ApiError && caught.issues.length > 0) setIssues(caught.issues);
      else setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };

  const save = async () => {
    if (!draft) return;
    setIssues([]);
    setError(undefined);
    try {
      const agent = saved.data
        ? await api<AgentResponse>('PUT', wsPath(slug, `/agents/${saved.data.id}`), draft, { 'if-match': `"${saved.data.version}"` })
        : await api<AgentResponse>('POST', wsPath(slug, '/agents'), { ...draft, enabled: false });
      void queryClient.invalidateQueries({ queryKey: ['agents', slug] });
      void queryClient.invalidateQueries({ queryKey: ['agent', slug, agent.id] });
      navigate(`/agents/${agent.id}`);
    } catch (caught) {
      if (caught instanceof ApiError && caught.issues.length > 0) setIssues(caught.issues);
      else setError(errorText(caught));
    }
  };

  if (saved.error) return <p role="alert" className="error">{errorText(saved.error)}</p>;
  if (!draft) return <p className="loading">Loading…</p>;
  return (
    <section className="craft">
      <div className="page-head">
        <h1>{saved.data ? `Craft ${saved.data.spec.name}` : 'Craft an agent'}</h1>
        <button type="button" onClick={save}>
          {saved.data ? 'Save as a new version' : 'Save as a new agent'}
        </button>
      </div>
      {error && <p role="alert" className="error">{error}</p>}
      <IssueList issues={issues} testId="craft-issues" />
      <div className="craft-columns">
        <CraftCanvas draft={draft} onChange={setDraft} patches={patches} changedPaths={changedPaths} />
        <section className="craft-chat" aria-label="chat">
          <h2>Chat</h2>
          <ol className="craft-lines" data-testid="craft-chat" aria-live="polite">
            {lines.map((line, index) => (
              <li key={index} className={line.who === 'person' ? 'craft-person' : 'craft-agent'}>
                {line.who === 'person' ? <p>{line.text}</p> : <AgentLine ws={slug} event={line.event} />}
              </li>
            ))}
          </ol>
          <form className="craft-send" onSubmit={send}>
            <label htmlFor="craft-message">Message</label>
            <textarea id="craft-message" rows={2} value={message} onChange={(e) => setMessage(e.target.value)} />
            <button type="submit" disabled={busy || !message.trim()}>
              Send
            </button>
          </form>
          <ReplayTry ws={slug} draft={draft} agentId={draftId} onTried={(tried) => setDraftId(tried.agentId)} />
        </section>
      </div>
    </section>
  );
}
