/**
 * The reads a page makes as it opens, written once: the UI's queries use
 * these paths, and the gateway names them as preloads in the page it serves
 * (decision 0029), so that the browser fetches them while the script loads
 * instead of after it. Plain TypeScript: the gateway imports it too.
 */

/** Who is signed in: every page asks first. */
export const SESSION_PATH = '/v1/session';

/** The fleet's first page of runs, newest first, optionally filtered; under `/v1/workspaces/{ws}`. */
export function runsPath(filter: { agentId?: string; status?: string } = {}): string {
  const params = new URLSearchParams({ limit: '100' });
  if (filter.agentId) params.set('agentId', filter.agentId);
  if (filter.status) params.set('status', filter.status);
  return `/runs?${params}`;
}

/** Every agent of the workspace (the fleet's filter, names of rows). */
export const AGENTS_PATH = '/agents?limit=200';

/** The pending approvals (the count in the navigation, the inbox). */
export const PENDING_APPROVALS_PATH = '/approvals?status=pending&limit=200';

/** What the fleet page (`/`) reads as it opens, under `/v1/workspaces/{ws}`: the gateway preloads these. */
export const FLEET_FIRST_READS: readonly string[] = [runsPath(), AGENTS_PATH, PENDING_APPROVALS_PATH];
