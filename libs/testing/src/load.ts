import { apiClient } from './http-client';

/** Outcome of postFactsConcurrently. */
export interface LoadResult {
  /** The id of every distinct fact, in the order its first post returned. */
  ids: string[];
  /** Posts repeated with the same idempotencyKey, and how many returned the original id. */
  retries: number;
  retriesResolved: number;
  /** Any response that was neither 202 (first post) nor 200 (retry). */
  unexpected: Array<{ status: number; body: unknown }>;
}

/**
 * Why this exists: several guarantees are stated under load ("10,000 facts
 * posted by 8 concurrent clients, 10% of them retried with the same
 * idempotencyKey"). This drives exactly that over real HTTP; `onProgress`
 * lets a test act in the middle (kill a process).
 */
export async function postFactsConcurrently(options: {
  baseUrl: string;
  workspace: string;
  token: string;
  count: number;
  concurrency: number;
  /** Every n-th fact is posted a second time with the same key. @defaultValue 10 */
  retryEvery?: number;
  onProgress?: (posted: number) => void;
}): Promise<LoadResult> {
  const api = apiClient(options.baseUrl, options.token);
  const result: LoadResult = { ids: [], retries: 0, retriesResolved: 0, unexpected: [] };
  let next = 0;
  let posted = 0;
  const runId = Math.random().toString(36).slice(2);
  const client = async () => {
    while (next < options.count) {
      const n = next++;
      const body = { kind: 'load.fact', subject: { type: 'load', id: String(n) }, payload: { n }, idempotencyKey: `${runId}-${n}` };
      const first = await api('POST', `/v1/workspaces/${options.workspace}/events`, body);
      if (first.status !== 202) result.unexpected.push(first);
      const id = (first.body as { id: string }).id;
      result.ids.push(id);
      if (n % (options.retryEvery ?? 10) === 0) {
        result.retries += 1;
        const again = await api('POST', `/v1/workspaces/${options.workspace}/events`, body);
        if (again.status === 200 && (again.body as { id: string }).id === id) result.retriesResolved += 1;
        else result.unexpected.push(again);
      }
      posted += 1;
      options.onProgress?.(posted);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  return result;
}
