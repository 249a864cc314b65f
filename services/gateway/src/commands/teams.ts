import { AppError, ErrorCode, type TeamDetail, type TeamSummary, type Teammate } from '@switchyard/contracts';
import type { Principal } from '../auth-ports';
import type { TeammateStore } from '../teammate-ports';

/**
 * A team is the teammates sharing a `team` (decision 0059): no table of its own,
 * so it exists while one of its teammates does and cannot disagree with the roster.
 */
function summarize(name: string, members: readonly Teammate[]): TeamSummary {
  const live = members.filter((mate) => mate.status !== 'stopped').length;
  const working = members.filter((mate) => mate.status === 'working').length;
  return { name, status: working > 0 ? 'working' : live > 0 ? 'idle' : 'stopped', members: members.length, live, working };
}

function byTeam(roster: readonly Teammate[]): Map<string, Teammate[]> {
  const teams = new Map<string, Teammate[]>();
  for (const mate of roster) if (mate.team !== null) teams.set(mate.team, [...(teams.get(mate.team) ?? []), mate]);
  return teams;
}

/** `GET /teams`: the workspace's teams by name, counted. */
export async function listTeams(deps: { teammates: Pick<TeammateStore, 'list'> }, principal: Principal): Promise<TeamSummary[]> {
  const teams = byTeam(await deps.teammates.list(principal.workspaceId));
  return [...teams.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, members]) => summarize(name, members));
}

/** `GET /teams/{name}`: the team with its members (stopped ones too) by name; TEAM_NOT_FOUND when no teammate of the workspace has it. */
export async function getTeam(deps: { teammates: Pick<TeammateStore, 'list'> }, principal: Principal, name: string): Promise<TeamDetail> {
  const members = byTeam(await deps.teammates.list(principal.workspaceId)).get(name);
  if (!members) throw new AppError(ErrorCode.TEAM_NOT_FOUND, 'no teammate of this workspace is in that team', { name });
  const teammates = [...members].sort((a, b) => a.name.localeCompare(b.name));
  return { ...summarize(name, teammates), teammates };
}
