import type { Logger } from '@switchyard/logging';
import type { Matcher } from './matcher';
import type { ActivationSink, MatcherStore } from './ports';

const PAGE = 500;

/**
 * Makes the matcher whole from PostgreSQL, the system of record, whatever
 * Redis lost (a restart without AOF, a flush, a trimmed stream):
 * 1. every run still `queued` is enqueued again (job id = run id, so a job
 *    that exists is not duplicated);
 * 2. every workspace's facts after the matcher's cursor are processed, in
 *    seq order, through the same path as live facts.
 * On an install's first start (no cursor saved yet) the cursors start at
 * each workspace's last seq: history is not replayed into runs.
 */
export class Reconciler {
  constructor(
    private readonly matcher: Matcher,
    private readonly store: MatcherStore,
    private readonly activations: ActivationSink,
    private readonly log: Logger,
  ) {}

  /** Loads the matcher's state, then reconciles. */
  async start(): Promise<void> {
    const { initialized } = await this.matcher.load();
    if (!initialized) {
      const lastSeqs = await this.store.lastSeqs();
      for (const [workspaceId, seq] of lastSeqs) this.matcher.setCursor(workspaceId, seq);
      await this.store.saveCursors('matcher', lastSeqs);
      this.log.info({ workspaces: lastSeqs.size }, 'first start: cursors set to the current facts');
    }
    await this.reconcile();
  }

  /** Re-enqueues queued runs and processes every fact after the cursors. */
  async reconcile(): Promise<void> {
    const queued = await this.store.queuedRuns();
    await this.activations.enqueue(queued);
    let processed = 0;
    for (const workspace of await this.store.workspaces()) {
      for (;;) {
        const facts = await this.store.factsAfter(workspace, this.matcher.cursor(workspace.id), PAGE);
        if (facts.length === 0) break;
        await this.matcher.handle(facts.map((fact) => ({ fact, workspaceId: workspace.id })));
        processed += facts.length;
        if (facts.length < PAGE) break;
      }
    }
    this.log.info({ requeued: queued.length, processed }, 'reconciled from PostgreSQL');
  }
}
