/** A signal bounded by a parent signal and a time limit. */
export interface Deadline {
  signal: AbortSignal;
  /** True when the time limit (not the parent) aborted it. */
  timedOut(): boolean;
  /** Stops the timer and detaches from the parent; call it once the bounded work is over. */
  dispose(): void;
}

/**
 * A signal that aborts when `parent` does or after `ms`. One per bounded
 * step, disposed after it: the SDK never removes the abort listeners it adds
 * to a request's signal, so handing it the run's long-lived signal would
 * gather one listener per call for the whole run (AbortSignal.any too keeps
 * its listener on the parent).
 */
export function deadline(parent: AbortSignal, ms: number): Deadline {
  const controller = new AbortController();
  let expired = false;
  const onParentAbort = () => controller.abort(parent.reason);
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new Error(`no answer within ${ms} ms`));
  }, ms);
  if (parent.aborted) onParentAbort();
  else parent.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => expired,
    dispose: () => {
      clearTimeout(timer);
      parent.removeEventListener('abort', onParentAbort);
    },
  };
}

/**
 * `promise`, or a rejection as soon as `signal` aborts — for SDK steps that
 * do not all honour a signal (spawning, DNS, a send that never returns), so
 * no caller waits past its deadline.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  const reason = () => (signal.reason instanceof Error ? signal.reason : new Error('aborted'));
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(reason());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reason());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => (signal.removeEventListener('abort', onAbort), resolve(value)),
      (error: unknown) => (signal.removeEventListener('abort', onAbort), reject(error)),
    );
  });
}
