import { isRedisUnavailable } from '@switchyard/core';
import { sleep } from '../model/retry';
import type { AgentLoopOptions } from './loop-options';
import { durationLimitMs, ranMs } from './run-duration';
import type { RunSession } from './run-session';

/** How long a run with no duration limit keeps retrying a step while Redis is unreachable. */
export const REDIS_RETRY_WINDOW_MS = 10 * 60_000;

/** The first wait between tries, doubled each time up to the cap. */
const FIRST_WAIT_MS = 100;
const MAX_WAIT_MS = 2000;

/**
 * Runs a step's I/O, and again while it fails because Redis is unreachable
 * (decision 0051): an outage of a few seconds delays the run instead of
 * failing it `executor_error`. It tries until the run's duration limit (or,
 * with none, REDIS_RETRY_WINDOW_MS of this outage), then lets the error
 * end the run. Only what may be repeated is passed here: the step boundary's
 * flush, stop check and mailbox read (a drain not absorbed deletes nothing).
 */
export async function retryingRedisBlips<T>(session: RunSession, options: AgentLoopOptions, attempt: () => Promise<T>): Promise<T> {
  const since = performance.now();
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, MAX_WAIT_MS)) {
    try {
      return await attempt();
    } catch (error) {
      if (!isRedisUnavailable(error) || session.context.signal.aborted) throw error;
      const left = timeLeftMs(session, options, since);
      if (left <= wait) throw error;
      options.log.warn({ err: error, runId: session.run.id, retryInMs: wait }, 'redis unavailable during a step; retrying the step');
      // An abort (lease lost, process stopping) ends the wait: the boundary then ends the run as aborted.
      await sleep(wait, session.context.signal).catch(() => undefined);
      if (session.context.signal.aborted) throw error;
    }
  }
}

/** What is left of the run's duration limit, or of the retry window of this outage when it has none. */
function timeLeftMs(session: RunSession, options: AgentLoopOptions, since: number): number {
  const limit = durationLimitMs(session, options);
  return limit === null ? REDIS_RETRY_WINDOW_MS - (performance.now() - since) : limit - ranMs(session);
}
