import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, errorText, wsPath } from '../api';
import { Conversation } from '../components/conversation';
import { TeammateActions } from '../components/teammate-actions';
import { shortId, usd } from '../format';
import { useFacts } from '../live';
import { useAgents, useTeammateTranscript } from '../queries';
import { useWorkspace } from '../session';
import type { Teammate } from '../types';
import './team.css';

/**
 * One teammate (`GET /teammates/{name}`): status, agent, team membership,
 * memory settings, and its whole conversation across turns
 * (`GET /teammates/{name}/transcript`, decision 0052) with compactions marked
 * and the raw entries they replaced still readable. A member may message or
 * stop it; a viewer reads.
 */
export function TeammatePage({ params }: { params: { name: string } }) {
  const { slug, role } = useWorkspace();
  const name = decodeURIComponent(params.name);
  const queryClient = useQueryClient();
  const live = useFacts(
    slug,
    (fact) => {
      if (fact.kind.startsWith('teammate.') || fact.kind.startsWith('agent.run.') || fact.kind === 'message.sent') void queryClient.invalidateQueries({ queryKey: ['teammate', slug, name] });
    },
    [['teammate', slug, name]],
  );
  const mate = useQuery({
    queryKey: ['teammate', slug, name],
    queryFn: () => api<Teammate>('GET', wsPath(slug, `/teammates/${encodeURIComponent(name)}`)),
    enabled: live,
  });
  // Entries are not facts: read again every second while a turn is under way, and afresh whenever its last turn changes.
  const last = mate.data ? `${mate.data.status}:${mate.data.turns}:${mate.data.lastTurn?.status ?? ''}` : '';
  const transcript = useTeammateTranscript(slug, name, last, mate.data?.status === 'working');
  const agents = useAgents(slug);
  const canWrite = role !== 'viewer';
  if (mate.error) return <p role="alert" className="error">{errorText(mate.error)}</p>;
  const data = mate.data;
  return (
    <section className="team teammate">
      <div className="page-head">
        <h1>Teammate {name}</h1>
        {data && (
          <span className={`status t-${data.status}`} data-testid="teammate-status">
            {data.status}
          </span>
        )}
      </div>
      {data && (
        <dl className="facts-grid" data-testid="teammate-facts">
          <dt>Agent</dt>
          <dd>
            <Link href={`/agents/${data.agentId}`}>{agents.data?.find((agent) => agent.id === data.agentId)?.spec.name ?? shortId(data.agentId)}</Link>
          </dd>
          <dt>Team</dt>
          <dd data-testid="membership">{data.team ? <Link href={`/teams/${encodeURIComponent(data.team)}`}>{data.team}</Link> : <span className="muted">none</span>}</dd>
          <dt>Memory</dt>
          <dd data-testid="memory">
            compacts past ~{data.memory.maxContextTokens.toLocaleString('en-US')} tokens, keeping the {data.memory.keepRecentTurns} latest turns
          </dd>
          <dt>Turns</dt>
          <dd>
            {data.turns} · {usd(data.spendUsd)}
          </dd>
        </dl>
      )}
      {data && canWrite && data.status !== 'stopped' && <TeammateActions name={data.name} />}
      <h2>Conversation</h2>
      {transcript.error && <p role="alert" className="error">{errorText(transcript.error)}</p>}
      <Conversation entries={transcript.data ?? []} />
    </section>
  );
}
