import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, errorText, wsPath } from '../api';
import { ImportBundle } from '../components/bundle-actions';
import { QueueFill, SpendToday } from '../components/limits';
import { when } from '../format';
import { useAgents } from '../queries';
import { useWorkspace } from '../session';
import { CRAFTING_AGENT_NAME, type Run } from '../types';

/** Per agent: its latest run, from the latest 200 runs. */
function useRecentRuns(ws: string) {
  return useQuery({
    queryKey: ['runs-recent', ws],
    queryFn: () => api<{ runs: Run[] }>('GET', wsPath(ws, '/runs?limit=200')).then((r) => r.runs),
  });
}

export function AgentsPage() {
  const { slug, role } = useWorkspace();
  const agents = useAgents(slug, true);
  const runs = useRecentRuns(slug);
  const lastRun = (agentId: string) => runs.data?.find((run) => run.agentId === agentId);

  return (
    <section>
      <div className="page-head">
        <h1>Agents</h1>
        {role !== 'viewer' && (
          <>
            <Link href="/agents/new" className="button-link">
              New agent
            </Link>
            <Link href="/agents/craft" className="button-link">
              Craft an agent
            </Link>
            <ImportBundle ws={slug} />
          </>
        )}
      </div>
      {agents.error && <p role="alert" className="error">{errorText(agents.error)}</p>}
      <div className="table-wrap">
        <table data-testid="agents">
          <thead>
            <tr>
              <th>Name</th>
              <th>State</th>
              <th>Version</th>
              <th>Last run</th>
              <th>Today (UTC) / budget</th>
              <th>Queue / cap</th>
              <th className="hide-narrow">Cooldown</th>
            </tr>
          </thead>
          <tbody>
            {agents.data?.map((agent) => {
              const last = lastRun(agent.id);
              return (
                <tr key={agent.id} data-agent-id={agent.id}>
                  <td>
                    <Link href={`/agents/${agent.id}`}>{agent.spec.name}</Link>
                    {agent.spec.name === CRAFTING_AGENT_NAME && (
                      <span className="muted" data-testid="built-in">
                        {' '}
                        · built-in: crafting conversations
                      </span>
                    )}
                  </td>
                  <td>
                    <span className={agent.enabled ? 'status s-completed' : 'status s-cancelled'}>{agent.enabled ? 'enabled' : 'disabled'}</span>
                  </td>
                  <td>
                    v{agent.version}
                    {agent.pinnedVersion !== null && <span className="muted"> · runs v{agent.pinnedVersion}</span>}
                  </td>
                  <td>{last ? <Link href={`/runs/${last.id}`}>{`${last.status} · ${when(last.queuedAt)}`}</Link> : <span className="muted">{runs.data ? 'never' : '…'}</span>}</td>
                  <td>
                    <SpendToday agent={agent} />
                  </td>
                  <td>
                    <QueueFill agent={agent} />
                  </td>
                  <td className="hide-narrow">{agent.spec.flow.cooldownMs ? `${agent.spec.flow.cooldownMs / 1000} s` : 'off'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {agents.data?.length === 0 && <p className="muted">No agents yet.</p>}
      </div>
    </section>
  );
}
