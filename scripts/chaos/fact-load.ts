import { HttpLoad } from '../../bench/lib/http-load';
import { offeredFact } from './scenario';

/** Options of offerFacts. */
export interface FactLoadOptions {
  /** The gateway, always on 127.0.0.1 (the harness started it). */
  gatewayUrl: string;
  workspace: string;
  token: string;
  /** Facts offered per second. */
  rate: number;
  durationMs: number;
  /** How long after the load a fact not yet acknowledged is still retried. */
  retryForMs: number;
  /** Distinguishes this load's idempotency keys. */
  loadId: string;
  /** Facts not yet acknowledged at once; the load waits when this many are. @defaultValue rate × 30 */
  maxPending?: number;
}

/** What the load generator offered and what the gateway answered. */
export interface FactLoadResult {
  offered: number;
  /** The id each acknowledged fact got (`202` first, or `200` for a retry), by its number. */
  acknowledged: Map<number, string>;
  /** Facts never acknowledged: refused with a 4xx that is not 429, or still failing when retries ran out. */
  refused: Array<{ n: number; status: number; text: string }>;
  givenUp: number[];
  /** Every answer by status (`error` for a connection that failed), retries included. */
  answers: Record<string, number>;
  elapsedMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Why this exists: the chaos guarantees are about acknowledged facts. This
 * offers facts at a steady rate (open loop: on schedule whatever the answers)
 * and, like a careful producer, retries each one with the same body and
 * idempotency key after a 5xx, a 429 or a broken connection, with a capped
 * backoff, until it is acknowledged or `retryForMs` after the load has passed.
 */
export async function offerFacts(options: FactLoadOptions): Promise<FactLoadResult> {
  const http = new HttpLoad(options.gatewayUrl, { authorization: `Bearer ${options.token}` }, 64);
  const path = `/v1/workspaces/${options.workspace}/events`;
  const total = Math.round((options.rate * options.durationMs) / 1000);
  const maxPending = options.maxPending ?? options.rate * 30;
  const result: FactLoadResult = { offered: 0, acknowledged: new Map(), refused: [], givenUp: [], answers: {}, elapsedMs: 0 };
  const started = performance.now();
  const retryUntil = Date.now() + options.durationMs + options.retryForMs;
  const count = (status: string) => (result.answers[status] = (result.answers[status] ?? 0) + 1);
  let pending = 0;

  const offer = async (n: number) => {
    const { n: _n, ...fact } = offeredFact(n, options.loadId);
    const body = JSON.stringify(fact);
    for (let attempt = 0; ; attempt++) {
      const answer = await http.post(path, body).catch(() => undefined);
      count(answer ? String(answer.status) : 'error');
      if (answer && (answer.status === 200 || answer.status === 202)) {
        result.acknowledged.set(n, (JSON.parse(answer.text) as { id: string }).id);
        return;
      }
      if (answer && answer.status < 500 && answer.status !== 429) {
        result.refused.push({ n, status: answer.status, text: answer.text.slice(0, 300) });
        return;
      }
      if (Date.now() > retryUntil) {
        result.givenUp.push(n);
        return;
      }
      await sleep(Math.min(1000, 50 * 2 ** attempt) * (0.5 + Math.random()));
    }
  };

  const inflight: Promise<void>[] = [];
  for (let n = 0; n < total; n++) {
    const wait = started + (n * 1000) / options.rate - performance.now();
    if (wait > 1) await sleep(wait);
    while (pending >= maxPending) await sleep(10);
    pending += 1;
    result.offered += 1;
    inflight.push(offer(n).finally(() => (pending -= 1)));
  }
  await Promise.all(inflight);
  result.elapsedMs = Math.round(performance.now() - started);
  http.close();
  return result;
}
