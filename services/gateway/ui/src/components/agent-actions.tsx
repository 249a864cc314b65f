import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { api, errorText, wsPath } from '../api';
import type { Run } from '../types';

/** Starts a manual run with the input typed (`POST /agents/{id}/runs`) and opens it. */
export function StartRun({ ws, agentId }: { ws: string; agentId: string }) {
  const [, navigate] = useLocation();
  const [input, setInput] = useState('');
  const [error, setError] = useState<string | undefined>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      const run = await api<Run>('POST', wsPath(ws, `/agents/${agentId}/runs`), { input });
      navigate(`/runs/${run.id}`);
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  return (
    <form className="stack-form" aria-label="start a run" onSubmit={submit}>
      <div className="field">
        <label htmlFor="run-input">Input</label>
        <textarea id="run-input" value={input} onChange={(e) => setInput(e.target.value)} rows={3} required />
      </div>
      <div className="row">
        <button type="submit">Start run</button>
      </div>
      {error && <p role="alert" className="error">{error}</p>}
    </form>
  );
}

/** Deletes the agent after a confirmation (`DELETE /agents/{id}`: disabled and hidden, its versions and runs still readable), then shows the agents. */
export function DeleteAgent({ ws, agentId, name }: { ws: string; agentId: string; name: string }) {
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const remove = async () => {
    setError(undefined);
    try {
      await api('DELETE', wsPath(ws, `/agents/${agentId}`));
      await queryClient.invalidateQueries({ queryKey: ['agents', ws] });
      navigate('/agents');
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  if (!confirming)
    return (
      <button type="button" className="danger" onClick={() => setConfirming(true)}>
        Delete
      </button>
    );
  return (
    <span className="confirm" role="group" aria-label="confirm delete">
      Delete {name}? Its versions and runs stay readable.
      <button type="button" className="danger" onClick={remove} autoFocus>
        Yes, delete
      </button>
      <button type="button" onClick={() => setConfirming(false)}>
        Cancel
      </button>
      {error && <span role="alert" className="error">{error}</span>}
    </span>
  );
}
