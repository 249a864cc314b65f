import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, errorText, wsPath } from '../api';
import type { Collaborator } from '../types';

type Rule = Collaborator['rule'];

/**
 * The agents this agent may delegate to (`/agents/{id}/collaborators`,
 * decision 0026): every other agent with its rule; a member sets a rule
 * (`PUT`, enabled or disabled) or removes it (`DELETE`, back to none).
 */
export function Collaborators({ ws, agentId, canWrite }: { ws: string; agentId: string; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const key = ['collaborators', ws, agentId];
  const list = useQuery({
    queryKey: key,
    queryFn: () => api<{ collaborators: Collaborator[] }>('GET', wsPath(ws, `/agents/${agentId}/collaborators?limit=200`)).then((r) => r.collaborators),
  });
  const [error, setError] = useState<string | undefined>();

  const setRule = async (other: Collaborator, rule: Rule) => {
    setError(undefined);
    try {
      const path = wsPath(ws, `/agents/${agentId}/collaborators/${other.agentId}`);
      if (rule === 'none') await api('DELETE', path);
      else await api('PUT', path, { enabled: rule === 'enabled' });
      // Shown at once: the select is controlled, and a refetch still on its way would put the old rule back meanwhile.
      queryClient.setQueryData<Collaborator[]>(key, (rows) => rows?.map((row) => (row.agentId === other.agentId ? { ...row, rule } : row)));
      await queryClient.invalidateQueries({ queryKey: key });
    } catch (caught) {
      setError(errorText(caught));
    }
  };

  if (list.error) return <p role="alert" className="error">{errorText(list.error)}</p>;
  if (!list.data) return <p className="loading">Loading…</p>;
  if (list.data.length === 0) return <p className="muted">No other agents to delegate to.</p>;
  return (
    <>
      <div className="table-wrap">
        <table data-testid="collaborators">
          <thead>
            <tr>
              <th>Agent</th>
              <th>May delegate to it</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((other) => (
              <tr key={other.agentId} data-collaborator={other.name}>
                <td>
                  {other.name}
                  {!other.agentEnabled && <span className="muted"> · disabled</span>}
                </td>
                <td>
                  {canWrite ? (
                    <select aria-label={`delegation to ${other.name}`} value={other.rule} onChange={(e) => setRule(other, e.target.value as Rule)}>
                      <option value="none">no rule</option>
                      <option value="enabled">allowed</option>
                      <option value="disabled">refused</option>
                    </select>
                  ) : (
                    <span data-testid="collaborator-rule">{other.rule}</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {error && <p role="alert" className="error">{error}</p>}
    </>
  );
}
