import type { EvalProgressStep } from '../commands/eval-progress';
import { EventStreamSession, type EventStreamSessionOptions } from './event-stream';

/** Options of EvalStreamSession. */
export interface EvalStreamSessionOptions extends EventStreamSessionOptions {
  /** One read of the eval's progress (EvalProgress.next with the stream's cursor). */
  next: () => Promise<EvalProgressStep>;
  pollMs: number;
}

/**
 * Sends an eval's progress as it happens: reads PostgreSQL every `pollMs`
 * (trials end in the runner, which has no channel to this replica), writes
 * the newly ended trials in one write, and once the eval settled its
 * verdict, then ends. Only the last trial of a write carries the cursor as
 * its id, so a break inside a write resends that write's trials (the page
 * keys trials by slot); none is ever missed.
 */
export class EvalStreamSession extends EventStreamSession {
  constructor(private readonly options: EvalStreamSessionOptions) {
    super(options);
  }

  start(): void {
    void this.tick();
  }

  private async tick(): Promise<void> {
    try {
      const step = await this.options.next();
      if (this.closed) return;
      if (step.trials.length > 0) {
        const frames = step.trials.map((trial, i) => {
          const id = i === step.trials.length - 1 ? `id: ${step.cursorId}\n` : '';
          return `${id}event: trial\ndata: ${JSON.stringify({ type: 'trial', trial })}\n\n`;
        });
        this.res.write(frames.join(''));
      }
      if (step.verdict) {
        this.end(`event: verdict\ndata: ${JSON.stringify({ type: 'verdict', eval: step.verdict })}\n\n`);
        return;
      }
    } catch (error) {
      this.options.log.warn({ err: error }, 'eval stream read failed; retried');
    }
    this.readAgainIn(this.options.pollMs, () => this.tick());
  }
}
