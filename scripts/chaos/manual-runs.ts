import { apiClient } from '@switchyard/testing';

/** What the manual-run load asked and what the gateway answered. */
export interface ManualRunResult {
  /** Answers by status (`error`: the connection failed). */
  answers: Record<string, number>;
}

/**
 * Why this exists: the gateway records the `agent.run.queued` fact of a manual
 * run itself, so a gateway killed between the run's commit and that fact loses
 * it. Starting one manual run a second during the load puts such runs under
 * the gateway's kill; the run-fact check then covers them like any run. A
 * manual run is not idempotent, so a failed request is not retried.
 */
export async function startManualRuns(options: { gatewayUrl: string; workspace: string; token: string; agentId: string; durationMs: number }): Promise<ManualRunResult> {
  const api = apiClient(options.gatewayUrl, options.token);
  const result: ManualRunResult = { answers: {} };
  const until = Date.now() + options.durationMs;
  for (let i = 0; Date.now() < until; i++) {
    const answer = await api('POST', `/v1/workspaces/${options.workspace}/agents/${options.agentId}/runs`, { input: `manual ${i}` }).catch(() => undefined);
    const status = answer ? String(answer.status) : 'error';
    result.answers[status] = (result.answers[status] ?? 0) + 1;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return result;
}
