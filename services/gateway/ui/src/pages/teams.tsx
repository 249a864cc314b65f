import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, errorText, wsPath } from '../api';
import { Roster } from '../components/roster';
import { useFacts } from '../live';
import { useWorkspace } from '../session';
import type { Fact, TeamDetail, TeamSummary } from '../types';
import './team.css';

/** Facts that change a team's members or status: the roster's and its turns'. */
const changesTeams = (fact: Fact) => fact.kind.startsWith('teammate.') || fact.kind.startsWith('agent.run.');

/** Keeps the teams' reads fresh from the workspace stream; true once they may be made. */
function useLiveTeams(slug: string): boolean {
  const queryClient = useQueryClient();
  return useFacts(
    slug,
    (fact) => {
      if (changesTeams(fact)) for (const key of ['teams', 'team']) void queryClient.invalidateQueries({ queryKey: [key, slug] });
    },
    [['teams', slug], ['team', slug]],
  );
}

/**
 * The teams (`GET /teams`, decision 0059): the teammates sharing a `team`,
 * with status and counts; each links to its page. Live through the stream.
 */
export function TeamsPage() {
  const { slug } = useWorkspace();
  const live = useLiveTeams(slug);
  const teams = useQuery({
    queryKey: ['teams', slug],
    queryFn: () => api<{ teams: TeamSummary[] }>('GET', wsPath(slug, '/teams')).then((r) => r.teams),
    enabled: live,
  });
  return (
    <section className="team">
      <div className="page-head">
        <h1>Teams</h1>
        <Link href="/team">All teammates</Link>
      </div>
      {teams.error && <p role="alert" className="error">{errorText(teams.error)}</p>}
      <div className="table-wrap">
        <table data-testid="teams">
          <thead>
            <tr>
              <th>Team</th>
              <th>Status</th>
              <th className="c-num">Members</th>
              <th className="c-num">Live</th>
              <th className="c-num">Working</th>
            </tr>
          </thead>
          <tbody>
            {teams.data?.map((team) => (
              <tr key={team.name} data-team={team.name}>
                <td>
                  <Link href={`/teams/${encodeURIComponent(team.name)}`}>{team.name}</Link>
                </td>
                <td>
                  <span className={`status t-${team.status}`} data-testid="team-status">
                    {team.status}
                  </span>
                </td>
                <td className="c-num">{team.members}</td>
                <td className="c-num">{team.live}</td>
                <td className="c-num">{team.working}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {teams.data?.length === 0 && <p className="muted pad">No teams: a teammate spawned with a team makes one.</p>}
      </div>
    </section>
  );
}

/** One team (`GET /teams/{name}`): its status and members, stopped ones too, each with its actions for a member. */
export function TeamDetailPage({ params }: { params: { name: string } }) {
  const { slug, role } = useWorkspace();
  const name = decodeURIComponent(params.name);
  const live = useLiveTeams(slug);
  const team = useQuery({
    queryKey: ['team', slug, name],
    queryFn: () => api<TeamDetail>('GET', wsPath(slug, `/teams/${encodeURIComponent(name)}`)),
    enabled: live,
  });
  return (
    <section className="team">
      <div className="page-head">
        <h1>Team {name}</h1>
        {team.data && (
          <span className={`status t-${team.data.status}`} data-testid="team-status">
            {team.data.status}
          </span>
        )}
        <Link href="/teams">All teams</Link>
      </div>
      {team.error && <p role="alert" className="error">{errorText(team.error)}</p>}
      {team.data && (
        <p className="muted" data-testid="team-counts">
          {team.data.members} members · {team.data.live} live · {team.data.working} working
        </p>
      )}
      <Roster teammates={team.data?.teammates} canWrite={role !== 'viewer'} />
    </section>
  );
}
