import { useQuery } from '@tanstack/react-query';
import { api, ApiError, wsPath } from './api';
import type { AgentResponse, Approval, Fact, Member, Run, TranscriptEntry, WorkspaceSettings } from './types';

/** How often pages showing agents' usage (spend today, queued runs) read it again: it changes with every run, without a fact of its own. */
export const USAGE_REFRESH_MS = 5_000;

/** The workspace's agents (first 200), by id; `withUsage` reads them fresh on mount and every USAGE_REFRESH_MS. */
export function useAgents(ws: string, withUsage = false) {
  return useQuery({
    queryKey: ['agents', ws],
    queryFn: () => api<{ agents: AgentResponse[] }>('GET', wsPath(ws, '/agents?limit=200')).then((r) => r.agents),
    ...(withUsage ? { refetchOnMount: 'always' as const, refetchInterval: USAGE_REFRESH_MS } : {}),
  });
}

/** One fact; facts never change, so it is cached for good. */
export function useFact(ws: string, id: string | undefined) {
  return useQuery({
    queryKey: ['fact', ws, id],
    queryFn: () => api<Fact>('GET', wsPath(ws, `/events/${id}`)),
    enabled: id !== undefined,
    staleTime: Infinity,
  });
}

export function useSettings(ws: string) {
  return useQuery({ queryKey: ['settings', ws], queryFn: () => api<WorkspaceSettings>('GET', wsPath(ws, '/settings')) });
}

/**
 * Pending approvals (`GET /approvals?status=pending`), read once `enabled`
 * (the live stream is open). Null when this gateway has no approvals API
 * (404), so the page shows no count rather than a wrong one.
 */
export function usePendingApprovals(ws: string, enabled: boolean) {
  return useQuery({
    enabled,
    queryKey: ['approvals', ws, 'pending'],
    queryFn: async () => {
      try {
        return (await api<{ approvals: Approval[] }>('GET', wsPath(ws, '/approvals?status=pending&limit=200'))).approvals;
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
  });
}

/** The fact id a run was started by (a trigger run or a retry of one). */
export function eventIdOf(run: Run): string | undefined {
  return run.origin.type === 'trigger' || run.origin.type === 'retry' || run.origin.type === 'backfill' ? run.origin.eventId : undefined;
}

/** Whether a run will change no more. */
export function isFinished(run: Run): boolean {
  return run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled' || run.status === 'dropped';
}

/** Every transcript entry at `path` (a run's or a teammate's), page by page. */
async function readTranscript(ws: string, path: string): Promise<TranscriptEntry[]> {
  const entries: TranscriptEntry[] = [];
  let after = 0;
  for (;;) {
    const page = await api<{ entries: TranscriptEntry[]; next: number | null }>('GET', wsPath(ws, `${path}?after=${after}&limit=500`));
    entries.push(...page.entries);
    if (page.next === null) return entries;
    after = page.next;
  }
}

/** A run's transcript, read again every second while `live`: entries are not facts, so the stream does not carry them. */
export function useTranscript(ws: string, runId: string, live: boolean) {
  return useQuery({ queryKey: ['transcript', ws, runId], queryFn: () => readTranscript(ws, `/runs/${runId}/transcript`), refetchInterval: live ? 1_000 : false });
}

/**
 * A teammate's whole conversation (its session's transcript, every turn): read
 * afresh when `version` changes (its status, turns), and every second while `live` (a turn is under way).
 */
export function useTeammateTranscript(ws: string, name: string, version: string, live: boolean) {
  return useQuery({
    queryKey: ['teammate-transcript', ws, name, version],
    placeholderData: (previous) => previous,
    queryFn: () => readTranscript(ws, `/teammates/${encodeURIComponent(name)}/transcript`),
    refetchInterval: live ? 1_000 : false,
  });
}

/** The workspace's members (names for who did what; decision 0042). */
export function useMembers(ws: string) {
  return useQuery({ queryKey: ['members', ws], queryFn: async () => (await api<{ members: Member[] }>('GET', wsPath(ws, '/members'))).members });
}
