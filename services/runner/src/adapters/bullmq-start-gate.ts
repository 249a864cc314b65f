import type { ActivationQueue } from '@switchyard/redis';
import type { Logger } from '@switchyard/logging';
import type { RunStartGate } from '../ports';

/**
 * The run start gate read from the `activations` queue's own pause flag,
 * the one the BullMQ dashboard's "pause" and "pause all" set (one Redis
 * HEXISTS per claim it guards): the dashboard's button then stops every run
 * from starting, including those the run queue's sweep would start (decision 0043).
 * An unreadable flag counts as paused: a stop button must not fail open.
 */
export class BullmqStartGate implements RunStartGate {
  constructor(
    private readonly queue: ActivationQueue,
    private readonly log: Logger,
  ) {}

  async paused(): Promise<boolean> {
    try {
      return await this.queue.isPaused();
    } catch (error) {
      this.log.warn({ err: error }, 'the activations pause flag could not be read; no run starts');
      return true;
    }
  }
}
