import { useEffect, useState } from 'react';
import { api, ApiError, wsPath } from '../api';
import type { AgentResponse, ValidationIssue } from '../types';
import { IssueList } from './issue-list';

/**
 * Edits an agent's spec as JSON and saves it as a new version (`PUT` with
 * `If-Match`, so a concurrent save is a conflict, not a silent overwrite). The
 * API's VALIDATION_FAILED issues are shown at their path; nothing is saved then.
 */
export function SpecEditor({
  ws,
  agent,
  onSaved,
  onDraft,
}: {
  ws: string;
  agent: AgentResponse;
  onSaved: (saved: AgentResponse) => void;
  /** Told the text being edited, so the page can try the draft. */
  onDraft?: (text: string) => void;
}) {
  const [text, setText] = useState(() => JSON.stringify(agent.spec, null, 2));
  useEffect(() => onDraft?.(text), [text, onDraft]);
  const [issues, setIssues] = useState<ValidationIssue[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const save = async () => {
    setIssues([]);
    setError(undefined);
    let spec: unknown;
    try {
      spec = JSON.parse(text);
    } catch (caught) {
      setError(`not JSON: ${(caught as Error).message}`);
      return;
    }
    setBusy(true);
    try {
      onSaved(await api<AgentResponse>('PUT', wsPath(ws, `/agents/${agent.id}`), spec, { 'if-match': `"${agent.version}"` }));
    } catch (caught) {
      if (caught instanceof ApiError && caught.issues.length > 0) setIssues(caught.issues);
      else setError(caught instanceof ApiError ? `${caught.code}: ${caught.message}` : String(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="spec-editor">
      <label htmlFor="spec-json">Spec (JSON)</label>
      <textarea id="spec-json" spellCheck={false} value={text} onChange={(e) => setText(e.target.value)} rows={Math.min(30, text.split('\n').length + 2)} />
      <div className="row">
        <button type="button" onClick={save} disabled={busy}>
          Save as v{agent.version + 1}
        </button>
        <button type="button" onClick={() => setText(JSON.stringify(agent.spec, null, 2))}>
          Revert
        </button>
      </div>
      {error && <p role="alert" className="error">{error}</p>}
      <IssueList issues={issues} testId="spec-issues" />
    </div>
  );
}
