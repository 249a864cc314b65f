/**
 * Memoises an async function so that it runs at most once: every caller gets
 * the same promise. Used for `close()` methods, which SIGTERM handlers, tests
 * and error paths may all call.
 */
export function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined;
  return () => {
    promise ??= fn();
    return promise;
  };
}
