import type { Response } from 'express';
import type { Logger } from '@switchyard/logging';
import type { EvalProgressStep } from '../commands/eval-progress';

/** Options of EvalStreamSession. */
export interface EvalStreamSessionOptions {
  res: Response;
  /** One read of the eval's progress (EvalProgress.next with the stream's cursor). */
  next: () => Promise<EvalProgressStep>;
  pollMs: number;
  heartbeatMs: number;
  log: Logger;
  /** The verdict was sent: the stream ends. */
  onDone: () => void;
}

/**
 * Sends an eval's progress as it happens: reads PostgreSQL every `pollMs`
 * (trials end in the runner, which has no channel to this replica), writes
 * the newly ended trials in one write, and once the eval settled its
 * verdict, then ends. Only the last trial of a write carries the cursor as
 * its id, so a break inside a write resends that write's trials (the page
 * keys trials by slot); none is ever missed.
 */
export class EvalStreamSession {
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(private readonly options: EvalStreamSessionOptions) {
    this.heartbeat = setInterval(() => options.res.write(': heartbeat\n\n'), options.heartbeatMs);
  }

  start(): void {
    void this.tick();
  }

  close(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.timer);
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
        this.options.res.write(frames.join(''));
      }
      if (step.verdict) {
        this.close();
        this.options.res.end(`event: verdict\ndata: ${JSON.stringify({ type: 'verdict', eval: step.verdict })}\n\n`);
        this.options.onDone();
        return;
      }
    } catch (error) {
      this.options.log.warn({ err: error }, 'eval stream read failed; retried');
    }
    if (!this.closed) this.timer = setTimeout(() => void this.tick(), this.options.pollMs);
  }
}
