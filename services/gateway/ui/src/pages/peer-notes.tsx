import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, errorText, wsPath } from '../api';
import { when } from '../format';
import { useWorkspace } from '../session';
import type { AgentMessageHealth, AgentMessageObservation } from '../types';

/** How often the page reads health and recent observations again. */
const REFRESH_MS = 5_000;
/** Recent observations shown. */
const RECENT = 50;

const senderText = (o: AgentMessageObservation) => (o.sender.type === 'agent' ? `agent ${o.sender.id.slice(0, 8)} · run ${o.sender.runId.slice(0, 8)}` : `member ${o.sender.id.slice(0, 8)}`);

/**
 * One note's text, read only when a person asks for it (decision 0047):
 * `GET /agent-messages/{id}/content`, shown as untrusted data.
 */
function ContentOnRequest({ slug, messageId }: { slug: string; messageId: string }) {
  const [asked, setAsked] = useState(false);
  const content = useQuery({
    queryKey: ['agent-message-content', slug, messageId],
    queryFn: () => api<{ content: string }>('GET', wsPath(slug, `/agent-messages/${encodeURIComponent(messageId)}/content`)),
    enabled: asked,
    gcTime: 0,
  });
  if (!asked) return <button type="button" onClick={() => setAsked(true)}>Show content</button>;
  if (content.error) return <span className="error">{errorText(content.error)}</span>;
  return (
    <pre className="untrusted" data-testid="note-content" title="untrusted peer note: data, never an instruction">
      {content.data?.content ?? '…'}
    </pre>
  );
}

/**
 * Peer notes (agent-message/v1, docs/awareness.md): thread activity and
 * delivery health — counts, gaps, regressions, duplicates and quarantine
 * reasons — and the recent observations with their content hashes. No
 * content is shown unless a person asks for one message.
 */
export function PeerNotesPage() {
  const { slug } = useWorkspace();
  const health = useQuery({ queryKey: ['agent-message-health', slug], queryFn: () => api<AgentMessageHealth>('GET', wsPath(slug, '/agent-messages/health')), refetchInterval: REFRESH_MS });
  const lastSeq = health.data?.totals.lastSeq;
  const recent = useQuery({
    queryKey: ['agent-messages', slug, lastSeq],
    queryFn: () => api<{ observations: AgentMessageObservation[] }>('GET', wsPath(slug, `/agent-messages?since=${Math.max(0, (lastSeq ?? 0) - RECENT)}&limit=${RECENT}`)).then((r) => r.observations.reverse()),
    enabled: lastSeq !== undefined,
  });
  const totals = health.data?.totals;
  return (
    <section>
      <div className="page-head">
        <h1>Peer notes</h1>
        <span className="badge">observed, never obeyed</span>
      </div>
      {health.error && <p role="alert" className="error">{errorText(health.error)}</p>}
      {totals && (
        <p data-testid="note-totals">
          {totals.observations} observed · {totals.deliveries - totals.observations} duplicate deliveries · {totals.gaps} gaps · {totals.regressions} regressions · {totals.quarantined} quarantined
        </p>
      )}
      <h2>Threads</h2>
      <div className="table-wrap">
        <table data-testid="note-threads">
          <thead>
            <tr><th>Thread</th><th>Notes</th><th>Senders</th><th>Gaps</th><th>Regressions</th><th>Last</th></tr>
          </thead>
          <tbody>
            {health.data?.threads.map((t) => (
              <tr key={t.thread}><td>{t.thread}</td><td>{t.observations}</td><td>{t.senders}</td><td>{t.gaps}</td><td>{t.regressions}</td><td>{when(t.lastObservedAt)}</td></tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>Quarantine</h2>
      <ul data-testid="note-quarantine">
        {health.data?.quarantine.map((q) => <li key={q.reason}>{q.reason}: {q.count}</li>)}
        {health.data?.quarantine.length === 0 && <li className="muted">Nothing quarantined.</li>}
      </ul>
      <h2>Recent</h2>
      <div className="table-wrap">
        <table data-testid="note-recent">
          <thead>
            <tr><th>#</th><th>Thread</th><th>Topic</th><th>Sender</th><th>Seq</th><th>SHA-256</th><th>Content</th></tr>
          </thead>
          <tbody>
            {recent.data?.map((o) => (
              <tr key={o.seq}>
                <td>{o.seq}</td><td>{o.thread}</td><td>{o.topic}</td><td>{senderText(o)}</td>
                <td>{o.senderSeq} {o.sequence === 'next' || o.sequence === 'first' ? '' : `(${o.sequence})`}</td>
                <td><code>{o.contentSha256.slice(0, 12)}</code></td>
                <td><ContentOnRequest slug={slug} messageId={o.messageId} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
