/** Wakes listeners of a workspace. */
export type ObservationListener = () => void;

/**
 * Tells this gateway's open agent-message streams that their workspace has a
 * new observation, so that they read PostgreSQL at once instead of at their
 * next poll. A hint only: a stream on another replica still finds the note
 * by its poll (AGENT_MESSAGE_STREAM_POLL_MS), and nothing is lost without it.
 */
export class ObservationSignal {
  private readonly listeners = new Map<string, Set<ObservationListener>>();

  subscribe(workspaceId: string, listener: ObservationListener): () => void {
    let set = this.listeners.get(workspaceId);
    if (!set) this.listeners.set(workspaceId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(workspaceId);
    };
  }

  notify(workspaceId: string): void {
    for (const listener of this.listeners.get(workspaceId) ?? []) listener();
  }
}
