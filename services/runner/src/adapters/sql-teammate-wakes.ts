import { newId } from '@switchyard/core';
import type { SqlRunner } from '@switchyard/db';
import { wakeOrphanTeammate, wakeTeammateAfter } from '@switchyard/runs';
import type { SessionMailbox } from '@switchyard/redis';
import type { TeammateWakes } from '../loop/loop-ports';
import type { OrphanWakes } from '../ports';

/**
 * A teammate's next turn queued by the runner (decision 0035), through the
 * same SQL `teammate_wake` as a post that woke it: after a turn that left
 * messages unread (caused as that turn was), and for the teammates' mailboxes
 * left open with no turn at all (the sweep: `teammate_wake_orphan`).
 */
export class SqlTeammateWakes implements TeammateWakes, OrphanWakes {
  constructor(
    private readonly sql: SqlRunner,
    private readonly mailbox: SessionMailbox,
    /** How long a mailbox may stay open before the sweep looks at it: longer than a post takes to queue its wake. */
    private readonly openForMs: number,
  ) {}

  async after(run: { id: string; workspaceId: string }): Promise<string | null> {
    return wakeTeammateAfter(this.sql, run, newId());
  }

  async wakeOrphans(): Promise<string[]> {
    const woken: string[] = [];
    const live: string[] = [];
    const gone: string[] = [];
    for (const sessionId of await this.mailbox.openSince(this.openForMs)) {
      // One statement (one lane's lock) per session.
      const result = await wakeOrphanTeammate(this.sql, sessionId, newId());
      if (result === 'gone') gone.push(sessionId);
      else if (result === 'live') live.push(sessionId);
      else woken.push(result);
    }
    // A mailbox a turn holds is looked at again later, after the others.
    await this.mailbox.touchOpen(live);
    await this.mailbox.forgetOpen(gone);
    return woken;
  }
}
