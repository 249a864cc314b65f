import { Link } from 'wouter';
import { shortId, usd } from '../format';
import { useAgents } from '../queries';
import { useWorkspace } from '../session';
import type { Teammate } from '../types';
import { TeammateActions } from './teammate-actions';

/** Teammates as rows (the Team page's roster, a team's members): each links to its conversation, its team to the team. */
export function Roster({ teammates, canWrite }: { teammates: Teammate[] | undefined; canWrite: boolean }) {
  const agents = useAgents(useWorkspace().slug);
  const agentName = (id: string) => agents.data?.find((agent) => agent.id === id)?.spec.name ?? shortId(id);
  return (
    <div className="table-wrap">
      <table data-testid="roster">
        <thead>
          <tr>
            <th>Name</th>
            <th>Status</th>
            <th className="hide-narrow">Agent</th>
            <th className="hide-narrow">Team</th>
            <th className="c-num">Turns</th>
            <th className="c-num hide-narrow">Spend</th>
            <th className="hide-narrow">Last turn</th>
            <th className="c-actions">{canWrite ? 'Message' : ''}</th>
          </tr>
        </thead>
        <tbody>
          {teammates?.map((mate) => (
            <tr key={mate.id} data-teammate={mate.name}>
              <td>
                <Link href={`/teammates/${encodeURIComponent(mate.name)}`}>
                  <strong>{mate.name}</strong>
                </Link>
              </td>
              <td>
                <span className={`status t-${mate.status}`} data-testid="teammate-status">
                  {mate.status}
                </span>
              </td>
              <td className="hide-narrow ellipsis">{agentName(mate.agentId)}</td>
              <td className="hide-narrow">{mate.team ? <Link href={`/teams/${encodeURIComponent(mate.team)}`}>{mate.team}</Link> : <span className="muted">—</span>}</td>
              <td className="c-num">{mate.turns}</td>
              <td className="c-num hide-narrow">{usd(mate.spendUsd)}</td>
              <td className="hide-narrow">{mate.lastTurn ? <Link href={`/runs/${mate.lastTurn.runId}`}>{mate.lastTurn.status}</Link> : <span className="muted">none</span>}</td>
              <td className="c-actions">{canWrite && mate.status !== 'stopped' && <TeammateActions name={mate.name} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {teammates?.length === 0 && <p className="muted pad">No teammates. Spawn one with POST /teammates or the spawn_teammate tool.</p>}
    </div>
  );
}
