import { useEffect, useRef, useSyncExternalStore } from 'react';
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { wsPath } from './api';
import type { Fact } from './types';

type Listener = (fact: Fact) => void;

/**
 * The workspace's live stream, one EventSource per page shared by every view.
 * Resume is exact: the browser resends `Last-Event-ID` (the last seq) when it
 * reconnects by itself, and when the stream was closed for good (a 5xx, a
 * network loss) this reopens it with `?after=` the last seq it saw, so no fact
 * is missed or repeated (decision 0005).
 */
class LiveStream {
  private source: EventSource | undefined;
  private readonly listeners = new Set<Listener>();
  private readonly statusListeners = new Set<() => void>();
  private lastSeq: number | undefined;
  private retryTimer: number | undefined;
  status: 'connecting' | 'live' | 'offline' = 'connecting';
  /** How many times the stream has opened: each opening fixes where it starts. */
  opens = 0;

  constructor(readonly workspace: string) {}

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    if (!this.source) this.open();
    return () => this.listeners.delete(listener);
  }

  onStatus(listener: () => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  close(): void {
    window.clearTimeout(this.retryTimer);
    this.source?.close();
    this.source = undefined;
  }

  private setStatus(status: LiveStream['status']): void {
    this.status = status;
    for (const listener of this.statusListeners) listener();
  }

  private open(): void {
    const query = this.lastSeq === undefined ? '' : `?after=${this.lastSeq}`;
    const source = new EventSource(wsPath(this.workspace, `/stream${query}`), { withCredentials: true });
    this.source = source;
    source.onopen = () => {
      this.opens += 1;
      this.setStatus('live');
    };
    source.addEventListener('fact', (event) => {
      const message = event as MessageEvent<string>;
      this.lastSeq = Number(message.lastEventId);
      const fact = JSON.parse(message.data) as Fact;
      for (const listener of this.listeners) listener(fact);
    });
    source.onerror = () => {
      if (source.readyState !== EventSource.CLOSED) return this.setStatus('connecting');
      this.setStatus('offline');
      this.source = undefined;
      this.retryTimer = window.setTimeout(() => this.listeners.size > 0 && this.open(), 2_000);
    };
  }
}

let current: LiveStream | undefined;

function streamOf(workspace: string): LiveStream {
  if (current?.workspace !== workspace) {
    current?.close();
    current = new LiveStream(workspace);
  }
  return current;
}

/** Ends the live stream (at sign-out). */
export function closeLiveStream(): void {
  current?.close();
  current = undefined;
}

/**
 * Calls `onFact` for every fact of the workspace from now on, while the
 * component is mounted, and says whether the reads the stream keeps fresh may
 * be made. A read made before the stream has opened could miss the facts
 * recorded between the read and the stream's start, so such reads wait for it
 * to open (or to fail: then the page shows what it can, marked offline). The
 * queries under `reads` are read afresh when the page mounts (no fact reached
 * a copy cached while it was closed) and each time the stream opens again
 * (for what happened while it was away).
 */
export function useFacts(workspace: string, onFact: Listener, reads: QueryKey[] = []): boolean {
  const handler = useRef(onFact);
  handler.current = onFact;
  useEffect(() => streamOf(workspace).subscribe((fact) => handler.current(fact)), [workspace]);
  const stream = streamOf(workspace);
  const opens = useSyncExternalStore(
    (notify) => stream.onStatus(notify),
    () => stream.opens,
  );
  const status = useLiveStatus(workspace);
  const ready = opens > 0 || status === 'offline';
  const queryClient = useQueryClient();
  const keys = useRef(reads);
  keys.current = reads;
  const before = useRef<{ opens: number; ready: boolean }>(undefined);
  useEffect(() => {
    const last = before.current;
    // On mount a read already under way is the page's own, made now: it is not asked again.
    const again = !last ? { cancelRefetch: false } : opens > last.opens && last.ready ? { cancelRefetch: true } : undefined;
    if (again) for (const queryKey of keys.current) void queryClient.invalidateQueries({ queryKey }, again);
    before.current = { opens, ready };
  }, [opens, ready, queryClient]);
  return ready;
}

/** Whether the live stream is connected. */
export function useLiveStatus(workspace: string): LiveStream['status'] {
  const stream = streamOf(workspace);
  return useSyncExternalStore(
    (notify) => stream.onStatus(notify),
    () => stream.status,
  );
}
