import { apiClient } from './http-client';

/** Outcome of postFactsConcurrently. */
export interface LoadResult {
  /** The id of every distinct fact, in the order its first post returned. */
  ids: string[];
  /** Facts posted a second time with the same idempotencyKey, and how many resolved to the original id. */
  retries: number;
  retriesResolved: number;
  /** Any response that was neither 202 (first post) nor 200 (retry). */
  unexpected: Array<{ status: number; body: unknown }>;
}

/** Options of postFactsConcurrently. */
export interface LoadOptions {
  baseUrl: string;
  workspace: string;
  token: string;
  count: number;
  concurrency: number;
  /** Facts per request: 1 posts to /events, more to /events:batch. @defaultValue 1 */
  batchSize?: number;
  /** Every n-th fact is posted a second time with the same key. @defaultValue 10 */
  retryEvery?: number;
  /** Called after each request with the number of facts posted so far. */
  onProgress?: (posted: number) => void;
}

/**
 * Why this exists: several guarantees are stated under load ("10,000 facts
 * posted by 8 concurrent clients, 10% of them retried with the same
 * idempotencyKey"). This drives exactly that over real HTTP; `onProgress`
 * lets a test act in the middle (kill a process).
 */
export async function postFactsConcurrently(options: LoadOptions): Promise<LoadResult> {
  const api = apiClient(options.baseUrl, options.token);
  const result: LoadResult = { ids: [], retries: 0, retriesResolved: 0, unexpected: [] };
  const batchSize = options.batchSize ?? 1;
  const runId = Math.random().toString(36).slice(2);
  const body = (n: number) => ({ kind: 'load.fact', subject: { type: 'load', id: String(n) }, payload: { n }, idempotencyKey: `${runId}-${n}` });
  const post = async (ns: number[]): Promise<Array<{ status: number; id: string }>> => {
    if (batchSize === 1) {
      const response = await api('POST', `/v1/workspaces/${options.workspace}/events`, body(ns[0]!));
      return [{ status: response.status, id: (response.body as { id: string }).id }];
    }
    const response = await api('POST', `/v1/workspaces/${options.workspace}/events:batch`, { events: ns.map(body) });
    const results = (response.body as { results?: Array<{ id: string; status: string }> }).results ?? [];
    if (results.length !== ns.length) result.unexpected.push(response);
    return results.map((r) => ({ status: r.status === 'accepted' ? 202 : 200, id: r.id }));
  };
  let next = 0;
  let posted = 0;
  const client = async () => {
    while (next < options.count) {
      const ns: number[] = [];
      while (ns.length < batchSize && next < options.count) ns.push(next++);
      const first = await post(ns);
      const ids = new Map<number, string>();
      first.forEach((r, i) => {
        if (r.status !== 202) result.unexpected.push({ status: r.status, body: r });
        result.ids.push(r.id);
        ids.set(ns[i]!, r.id);
      });
      const retried = ns.filter((n) => n % (options.retryEvery ?? 10) === 0);
      for (let i = 0; i < retried.length; i += batchSize) {
        const again = await post(retried.slice(i, i + batchSize));
        again.forEach((r, j) => {
          result.retries += 1;
          if (r.status === 200 && r.id === ids.get(retried[i + j]!)) result.retriesResolved += 1;
          else result.unexpected.push({ status: r.status, body: r });
        });
      }
      posted += ns.length;
      options.onProgress?.(posted);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  return result;
}
