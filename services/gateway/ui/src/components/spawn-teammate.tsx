import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, errorText, wsPath } from '../api';
import { useAgents } from '../queries';
import type { Teammate } from '../types';

/**
 * Spawns a teammate (`POST /teammates`, the API's own command): a name, the
 * agent it runs, an optional team, the fact kinds its mailbox watches (one per
 * line; filters and cooldowns through the API) and its memory (decision 0052:
 * compact past so many tokens, keeping so many recent turns; empty = the
 * defaults). Numbers are sent as typed: the API judges them.
 */
export function SpawnTeammate({ ws }: { ws: string }) {
  const queryClient = useQueryClient();
  const agents = useAgents(ws);
  const [name, setName] = useState('');
  const [agentId, setAgentId] = useState('');
  const [team, setTeam] = useState('');
  const [watch, setWatch] = useState('');
  const [maxContextTokens, setMaxContextTokens] = useState('');
  const [keepRecentTurns, setKeepRecentTurns] = useState('');
  const [done, setDone] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const chosen = agentId || agents.data?.[0]?.id || '';

  const spawn = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    setDone(undefined);
    const kinds = watch
      .split('\n')
      .map((kind) => kind.trim())
      .filter(Boolean);
    const memory = {
      ...(maxContextTokens.trim() ? { maxContextTokens: Number(maxContextTokens) } : {}),
      ...(keepRecentTurns.trim() ? { keepRecentTurns: Number(keepRecentTurns) } : {}),
    };
    try {
      const mate = await api<Teammate>('POST', wsPath(ws, '/teammates'), {
        name: name.trim(),
        agentId: chosen,
        watch: kinds.map((kind) => ({ kind })),
        ...(team.trim() ? { team: team.trim() } : {}),
        ...(Object.keys(memory).length > 0 ? { memory } : {}),
      });
      setDone(`Spawned ${mate.name}.`);
      setName('');
      setWatch('');
      void queryClient.invalidateQueries({ queryKey: ['teammates', ws] });
    } catch (caught) {
      setError(errorText(caught));
    }
  };

  return (
    <details className="spawn">
      <summary>Spawn a teammate</summary>
      <form className="stack-form" aria-label="spawn a teammate" onSubmit={spawn}>
        <div className="form-row">
          <div className="field">
            <label htmlFor="mate-name">Teammate name</label>
            <input id="mate-name" value={name} onChange={(e) => setName(e.target.value)} required autoComplete="off" />
          </div>
          <div className="field">
            <label htmlFor="mate-agent">Runs agent</label>
            <select id="mate-agent" value={chosen} onChange={(e) => setAgentId(e.target.value)} required>
              {agents.data?.map((agent) => (
                <option key={agent.id} value={agent.id}>
                  {agent.spec.name}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="mate-team">Team (optional)</label>
            <input id="mate-team" value={team} onChange={(e) => setTeam(e.target.value)} autoComplete="off" />
          </div>
        </div>
        <div className="form-row">
          <div className="field">
            <label htmlFor="mate-max-context">Compact past (tokens, optional)</label>
            <input id="mate-max-context" type="number" inputMode="numeric" value={maxContextTokens} onChange={(e) => setMaxContextTokens(e.target.value)} placeholder="16000" />
          </div>
          <div className="field">
            <label htmlFor="mate-keep-turns">Keep recent turns (optional)</label>
            <input id="mate-keep-turns" type="number" inputMode="numeric" value={keepRecentTurns} onChange={(e) => setKeepRecentTurns(e.target.value)} placeholder="4" />
          </div>
        </div>
        <div className="field">
          <label htmlFor="mate-watch">Watches (one fact kind glob per line, optional)</label>
          <textarea id="mate-watch" value={watch} onChange={(e) => setWatch(e.target.value)} rows={2} />
        </div>
        <div className="row">
          <button type="submit" disabled={!chosen}>
            Spawn
          </button>
        </div>
        {done && (
          <p role="status" className="ok">
            {done}
          </p>
        )}
        {error && <p role="alert" className="error">{error}</p>}
      </form>
    </details>
  );
}
