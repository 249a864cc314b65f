import type { AgentMessageStore, Observable, ObserveOutcome } from '@switchyard/db';

/** Most envelopes written in one statement. */
const MAX_BATCH = 200;

interface Waiting {
  input: Observable;
  resolve: (outcome: ObserveOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for observations, per workspace and gateway process: while one
 * write of a workspace's notes is under way, the notes that arrive wait and
 * go together in the next statement — one lock of the workspace's cursor row
 * and one commit for all of them, instead of one each (the cursor row
 * serializes a workspace's writers, so single writes queued behind each
 * other's commits). A batch that meets a stored messageId (a replay, a
 * duplicate) is written one by one, where each gets its own disposition.
 * Nothing is answered before its row is committed.
 */
export class ObservationBatcher {
  private readonly queues = new Map<string, Waiting[]>();
  private readonly writing = new Set<string>();

  constructor(private readonly store: Pick<AgentMessageStore, 'observe' | 'observeMany'>) {}

  observe(input: Observable): Promise<ObserveOutcome> {
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(input.workspaceId) ?? [];
      queue.push({ input, resolve, reject });
      this.queues.set(input.workspaceId, queue);
      if (!this.writing.has(input.workspaceId)) void this.drain(input.workspaceId);
    });
  }

  private async drain(workspaceId: string): Promise<void> {
    this.writing.add(workspaceId);
    try {
      for (let queue = this.queues.get(workspaceId); queue && queue.length > 0; queue = this.queues.get(workspaceId)) {
        await this.write(queue.splice(0, MAX_BATCH));
      }
    } finally {
      this.queues.delete(workspaceId);
      this.writing.delete(workspaceId);
    }
  }

  private async write(batch: Waiting[]): Promise<void> {
    // The same messageId twice in one batch: the first goes in the batch, the others one by one after it.
    const seen = new Set<string>();
    const first = batch.filter((w) => !seen.has(w.input.post.messageId) && seen.add(w.input.post.messageId));
    const later = batch.filter((w) => !first.includes(w));
    try {
      const seqs = first.length > 1 ? await this.store.observeMany(first[0]!.input.workspaceId, first.map((w) => w.input)) : null;
      if (seqs) first.forEach((w, i) => w.resolve({ disposition: 'observed', seq: seqs[i]! }));
      else for (const w of first) await this.one(w);
    } catch (error) {
      for (const w of first) w.reject(error);
    }
    for (const w of later) await this.one(w);
  }

  private async one(waiting: Waiting): Promise<void> {
    try {
      waiting.resolve(await this.store.observe(waiting.input));
    } catch (error) {
      waiting.reject(error);
    }
  }
}
