import { useEffect, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { Fact, OverviewResponse } from '@switchyard/contracts';
import { api, wsPath } from '../api';
import { useFacts } from '../live';
import { applyFact, fromRead, isCountedFact, type OverviewState } from './overview-state';

/** Every minute in any case: the window moves on, and spend and queues change without a fact on this stream. */
const REREAD_MS = 60_000;

/**
 * After a run's fact, the figures facts do not carry (p95s, queues, spend)
 * are read again after this long, once for all the facts meanwhile: 5 s for
 * an hour's window, longer for longer ones (a read of a day's window costs
 * more, and its p95 moves less), a minute at most.
 */
export function reconcileDelayMs(windowMinutes: number): number {
  return Math.min(REREAD_MS, Math.max(5_000, windowMinutes * 100));
}
/** Facts folded in at once, at most this often: a burst redraws the charts once. */
const FLUSH_MS = 100;
/** The facts kept to fold over the next read: those after the last read's seq, at most this many. */
const MAX_KEPT = 20_000;

/**
 * The operations overview of a workspace, live (decision 0036): `GET
 * /overview` read once the stream is open (useFacts), then each run's end and
 * approval change folded in from the stream as it arrives, without a read. A
 * read is made again a few seconds after run facts (once for a burst,
 * reconcileDelayMs) and every minute; the facts after its `throughSeq` are folded over it, so none
 * is lost or counted twice whenever the read answers.
 */
export function useOverview(ws: string, windowMinutes: number) {
  const queryClient = useQueryClient();
  const queryKey = ['overview', ws, windowMinutes];
  const [state, setState] = useState<OverviewState>();
  const kept = useRef<Fact[]>([]);
  const queued = useRef<Fact[]>([]);
  const timers = useRef<{ flush?: number; reconcile?: number }>({});

  const flush = () => {
    timers.current.flush = undefined;
    const facts = queued.current;
    queued.current = [];
    setState((current) => current && facts.reduce(applyFact, current));
  };
  const reconcileSoon = () => {
    timers.current.reconcile ??= window.setTimeout(() => {
      timers.current.reconcile = undefined;
      void queryClient.invalidateQueries({ queryKey }, { cancelRefetch: false });
    }, reconcileDelayMs(windowMinutes));
  };
  const live = useFacts(
    ws,
    (fact) => {
      if (fact.kind.startsWith('agent.run.')) reconcileSoon();
      if (!isCountedFact(fact)) return;
      kept.current.push(fact);
      if (kept.current.length > MAX_KEPT) kept.current.splice(0, kept.current.length - MAX_KEPT);
      queued.current.push(fact);
      timers.current.flush ??= window.setTimeout(flush, FLUSH_MS);
    },
    [queryKey],
  );
  useEffect(
    () => () => {
      window.clearTimeout(timers.current.flush);
      window.clearTimeout(timers.current.reconcile);
    },
    [],
  );

  const read = useQuery({
    queryKey,
    queryFn: async () => ({ response: await api<OverviewResponse>('GET', wsPath(ws, `/overview?window=${windowMinutes}`)), receivedAt: Date.now() }),
    enabled: live,
    // Never served from a copy: the facts folded into it were not kept for a later visit.
    gcTime: 0,
    refetchInterval: REREAD_MS,
  });
  useEffect(() => {
    if (!read.data) return;
    const { response, receivedAt } = read.data;
    kept.current = kept.current.filter((fact) => fact.seq > response.throughSeq);
    setState(kept.current.reduce(applyFact, fromRead(response, receivedAt)));
  }, [read.data]);
  return { state, error: read.error, live };
}
