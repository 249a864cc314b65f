import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, wsPath } from '../api';
import type { EvalGateState, EvalRun, EvalStreamEvent, EvalSuite, EvalTrialEvent } from '../types';

/** The workspace's suites, each at its latest version. */
export function useSuites(ws: string) {
  return useQuery({ queryKey: ['eval-suites', ws], queryFn: () => api<{ suites: EvalSuite[] }>('GET', wsPath(ws, '/eval-suites')).then((r) => r.suites) });
}

/** One suite at `version` (default: its latest); versions never change, so a given one is cached for good. */
export function useSuite(ws: string, id: string | undefined, version?: number) {
  return useQuery({
    queryKey: ['eval-suite', ws, id, version ?? 'latest'],
    queryFn: () => api<EvalSuite>('GET', wsPath(ws, `/eval-suites/${id}${version ? `?version=${version}` : ''}`)),
    enabled: id !== undefined,
    staleTime: version ? Infinity : 5_000,
  });
}

/** An agent's eval runs, newest first (reading them settles those whose trials all ended). */
export function useAgentEvals(ws: string, agentId: string) {
  return useQuery({ queryKey: ['agent-evals', ws, agentId], queryFn: () => api<{ evals: EvalRun[] }>('GET', wsPath(ws, `/agents/${agentId}/evals`)).then((r) => r.evals) });
}

/** The promotion gate of the version the agent runs. */
export function useEvalGate(ws: string, agentId: string) {
  return useQuery({ queryKey: ['eval-gate', ws, agentId], queryFn: () => api<EvalGateState>('GET', wsPath(ws, `/agents/${agentId}/eval-gate`)) });
}

/** A trial's place in its eval: one key per trial, so a resent trial replaces itself. */
export const trialKey = (t: Pick<EvalTrialEvent, 'caseIndex' | 'target' | 'trial'>) => `${t.caseIndex}/${t.target}/${t.trial}`;

/** How long the page waits before opening a stream the server closed for good (a 5xx, a network loss). */
const REOPEN_MS = 2_000;

/**
 * The eval's trials as they end, from `GET /evals/{id}/stream` while `live`.
 * The browser resends `Last-Event-ID` when it reconnects by itself; a stream
 * closed for good is opened again from the start. Either way a trial sent
 * twice replaces itself (keyed by slot); a session that ended (401) is not
 * retried. The verdict becomes the eval's cached read, and the stream is closed.
 */
export function useEvalStream(ws: string, id: string, live: boolean): { trials: Map<string, EvalTrialEvent>; status: 'connecting' | 'live' | 'offline' | 'ended' } {
  const queryClient = useQueryClient();
  const [trials, setTrials] = useState(() => new Map<string, EvalTrialEvent>());
  const [status, setStatus] = useState<'connecting' | 'live' | 'offline' | 'ended'>(live ? 'connecting' : 'ended');
  useEffect(() => {
    if (!live) return;
    let source: EventSource | undefined;
    let timer: number | undefined;
    let done = false;
    const open = () => {
      source = new EventSource(wsPath(ws, `/evals/${id}/stream`), { withCredentials: true });
      source.onopen = () => setStatus('live');
      source.addEventListener('trial', (event) => {
        const { trial } = JSON.parse((event as MessageEvent<string>).data) as Extract<EvalStreamEvent, { type: 'trial' }>;
        setTrials((old) => new Map(old).set(trialKey(trial), trial));
      });
      source.addEventListener('verdict', (event) => {
        const { eval: settled } = JSON.parse((event as MessageEvent<string>).data) as Extract<EvalStreamEvent, { type: 'verdict' }>;
        done = true;
        source?.close();
        setStatus('ended');
        queryClient.setQueryData(['eval', ws, id], settled);
      });
      source.onerror = () => {
        if (done) return;
        if (source?.readyState !== EventSource.CLOSED) return setStatus('connecting');
        setStatus('offline');
        // Read the eval first: a 401 ends the session (api() says so), so a revoked session stops here.
        const reopen = () => api('GET', wsPath(ws, `/evals/${id}`)).then(() => !done && open(), (error: unknown) => !(error instanceof ApiError && error.status === 401) && !done && (timer = window.setTimeout(reopen, REOPEN_MS)));
        timer = window.setTimeout(reopen, REOPEN_MS);
      };
    };
    open();
    return () => {
      done = true;
      window.clearTimeout(timer);
      source?.close();
    };
  }, [ws, id, live, queryClient]);
  return { trials, status };
}
