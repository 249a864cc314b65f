import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, errorText, wsPath } from '../api';
import { personName, shortId, when } from '../format';
import { useAgents, useMembers } from '../queries';
import { useWorkspace } from '../session';
import type { Approval, Member } from '../types';

function decider(approval: Approval, members: Member[] | undefined): string {
  const by = approval.decidedBy;
  if (!by) return '';
  return by.type === 'member' ? personName(by.userId, by.name, members) : `the platform (${by.reason})`;
}

/**
 * One approval: the agent that asks, the tool, its class and why it asks, the arguments preview and
 * the run's context; Approve / Deny with a note while pending (first decision
 * wins: a late click is told who decided), who and when once decided.
 */
export function ApprovalCard({ approval, showRun = true }: { approval: Approval; showRun?: boolean }) {
  const { slug, role } = useWorkspace();
  const members = useMembers(slug).data;
  const queryClient = useQueryClient();
  const [note, setNote] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const agentName = useAgents(slug).data?.find((agent) => agent.id === approval.agentId)?.spec.name;

  const decide = async (decision: 'approve' | 'deny') => {
    setBusy(true);
    setError(undefined);
    try {
      await api('POST', wsPath(slug, `/approvals/${approval.id}/decision`), { decision, ...(note.trim() ? { note: note.trim() } : {}) });
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
      void queryClient.invalidateQueries({ queryKey: ['approvals', slug] });
    }
  };

  return (
    <article className={`approval a-${approval.status}`} data-approval-id={approval.id} data-status={approval.status}>
      <div className="who-line">
        <Link href={`/agents/${approval.agentId}`} data-testid="approval-agent">
          {agentName ?? `agent ${shortId(approval.agentId)}`}
        </Link>{' '}
        asks for {approval.kind === 'plan' ? 'plan' : <code>{approval.tool?.name}</code>}
        {approval.tool && <span className={`status c-${approval.tool.class}`}> {approval.tool.class}</span>}
        <span className="muted"> · requested {when(approval.requestedAt)}</span>
        {showRun && (
          <>
            {' '}
            · run <Link href={`/runs/${approval.runId}`}>{shortId(approval.runId)}</Link>
          </>
        )}
      </div>
      {approval.tool && <p className="muted why">{approval.tool.why}</p>}
      {approval.reason && <p className="text">{approval.reason}</p>}
      <pre data-testid="arguments-preview">
        {approval.argumentsPreview}
        {approval.truncated ? '\n…' : ''}
      </pre>
      {approval.status === 'pending' ? (
        role !== 'viewer' && (
          <div className="row decide">
            <input aria-label="note" placeholder="note (optional)" value={note} onChange={(e) => setNote(e.target.value)} maxLength={2000} />
            <button type="button" onClick={() => decide('approve')} disabled={busy}>
              Approve
            </button>
            <button type="button" className="danger" onClick={() => decide('deny')} disabled={busy}>
              Deny
            </button>
          </div>
        )
      ) : (
        <p data-testid="decision">
          <span className={`status s-${approval.status === 'approved' ? 'completed' : 'failed'}`}>{approval.status}</span> by <span data-testid="decided-by">{decider(approval, members)}</span>{' '}
          {when(approval.decidedAt)}
          {approval.note ? ` — “${approval.note}”` : ''}
        </p>
      )}
      {error && <p role="alert" className="error">{error}</p>}
    </article>
  );
}
