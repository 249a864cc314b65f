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
  /** Whether it has opened or failed once: from then on, pages read (see useFacts). */
  settled = false;

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
    if (status !== 'connecting') this.settled = true;
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
 * queries under `reads` are read afresh when the page mounts or its reads
 * change (no fact reached a copy cached while it was closed), and each time
 * the stream opens again (for what happened while it was away).
 */
export function useFacts(workspace: string, onFact: Listener, reads: QueryKey[] = []): boolean {
  const stream = streamOf(workspace);
  const handler = useRef(onFact);
  handler.current = onFact;
  useEffect(() => stream.subscribe((fact) => handler.current(fact)), [stream]);
  const subscribe = (notify: () => void) => stream.onStatus(notify);
  const opens = useSyncExternalStore(subscribe, () => stream.opens);
  const ready = useSyncExternalStore(subscribe, () => stream.settled);
  const queryClient = useQueryClient();
  const keys = useRef(reads);
  keys.current = reads;
  const readAgain = (options: { cancelRefetch: boolean }) => {
    for (const queryKey of keys.current) void queryClient.invalidateQueries({ queryKey }, options);
  };
  // Mounted, or other reads: a copy cached before is marked stale, so each query reads once enabled.
  const readsId = JSON.stringify(reads);
  useEffect(() => readAgain({ cancelRefetch: false }), [readsId]);
  // Opened again after reads were made (under an earlier opening, or while it was down): read again.
  const before = useRef({ opens, ready });
  useEffect(() => {
    if (opens > before.current.opens && before.current.ready) readAgain({ cancelRefetch: true });
    before.current = { opens, ready };
  }, [opens, ready]);
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
