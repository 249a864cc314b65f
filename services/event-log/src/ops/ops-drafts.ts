import { MAX_OPS_RUNS_LISTED, OPS_FACT_KINDS, type ModelErrorCode, type ModelErrorsPayload } from '@switchyard/contracts';
import type { DeadLetterGrowth, LaneDepth, LostRunner, ModelFailureRow, OpenBacklog, OpsDraft } from './ops-ports';

/*
 * What each observation of the ops watcher becomes as a fact (decision 0038):
 * its rate-limit key, subject and payload. Pure: the watcher observes, these
 * build, the store records.
 */

/** A summary fits its schema (500 characters). */
function summary(text: string): string {
  return text.length <= 500 ? text : `${text.slice(0, 499)}…`;
}

/** A duration as people read it in one line. */
export function formatDuration(ms: number): string {
  if (ms < 120_000) return `${Math.max(0, Math.round(ms / 1000))} s`;
  if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}

/** `platform.runner_lost` for one runner in one workspace, keyed by the runner's name. */
export function runnerLostDraft(lost: LostRunner, windowMs: number): OpsDraft<typeof OPS_FACT_KINDS.runnerLost> {
  const lapsed = lost.runs.filter((run) => run.lapsed).length;
  const held = lost.runs.length - lapsed;
  const stillHeld = held > 0 ? `, ${held} more still leased to it` : '';
  return {
    kind: OPS_FACT_KINDS.runnerLost,
    workspace: lost.workspace,
    key: lost.runner,
    subjectId: `runner:${lost.runner}`,
    payload: {
      summary: summary(`runner ${lost.runner} lost: the leases of ${lapsed} run${lapsed === 1 ? '' : 's'} in flight lapsed${stillHeld}`),
      windowMs,
      runner: lost.runner,
      lapsedAt: lost.lapsedAt.toISOString(),
      runs: lost.runs.slice(0, MAX_OPS_RUNS_LISTED),
      runCount: lost.runs.length,
    },
  };
}

/** `platform.queue_backlogged` for one lane, keyed by the lane. */
export function backlogDraft(lane: LaneDepth, threshold: number, windowMs: number): OpsDraft<typeof OPS_FACT_KINDS.queueBacklogged> {
  return {
    kind: OPS_FACT_KINDS.queueBacklogged,
    workspace: lane.workspace,
    key: lane.lane,
    subjectId: `lane:${lane.lane}`,
    payload: {
      summary: summary(`lane ${lane.lane} has ${lane.depth} queued runs (threshold ${threshold}); the oldest has waited ${formatDuration(lane.oldestAgeMs)}`),
      windowMs,
      lane: lane.lane,
      agentId: lane.agentId,
      depth: lane.depth,
      threshold,
      oldestQueuedAt: lane.oldestQueuedAt.toISOString(),
      oldestAgeMs: Math.max(0, Math.round(lane.oldestAgeMs)),
    },
  };
}

/** The depth below which a backlogged lane counts as recovered: half the threshold (at least 1), so a lane hovering at the threshold does not flap. */
export function recoveredBelow(threshold: number): number {
  return Math.max(1, Math.ceil(threshold / 2));
}

/** `platform.queue_recovered` for a lane whose backlog is open, keyed like its backlog. */
export function recoveryDraft(open: OpenBacklog, threshold: number, windowMs: number, now: Date): OpsDraft<typeof OPS_FACT_KINDS.queueRecovered> {
  const below = recoveredBelow(threshold);
  return {
    kind: OPS_FACT_KINDS.queueRecovered,
    workspace: open.workspace,
    key: open.lane,
    subjectId: `lane:${open.lane}`,
    payload: {
      summary: summary(`lane ${open.lane} recovered: ${open.depth} queued runs (below ${below}) after ${formatDuration(now.getTime() - open.since.getTime())} backlogged`),
      windowMs,
      lane: open.lane,
      agentId: open.agentId,
      depth: open.depth,
      threshold,
      recoveredBelow: below,
      backloggedSince: open.since.toISOString(),
    },
  };
}

/** `platform.dead_letters_growing` for one stream and group, keyed by both. */
export function deadLetterDraft(growth: DeadLetterGrowth, windowMs: number): OpsDraft<typeof OPS_FACT_KINDS.deadLettersGrowing> {
  const error = growth.latest.error.slice(0, 500);
  const letters = `${growth.newLetters} entr${growth.newLetters === 1 ? 'y' : 'ies'}`;
  return {
    kind: OPS_FACT_KINDS.deadLettersGrowing,
    workspace: growth.workspace,
    key: `${growth.stream}/${growth.group}`,
    subjectId: `dead-letters:${growth.stream}/${growth.group}`,
    payload: {
      summary: summary(`${letters} of this workspace dead-lettered on ${growth.stream} by group ${growth.group} in the last ${formatDuration(windowMs)}; the newest: ${error}`),
      windowMs,
      stream: growth.stream,
      group: growth.group,
      newLetters: growth.newLetters,
      latest: { id: growth.latest.id, entryId: growth.latest.entryId, error, failedAt: growth.latest.failedAt.toISOString() },
    },
  };
}

/** The origin of an agent's own model endpoint (never its path, query or credentials); null for the operator's. */
export function endpointOf(baseUrl: string | null): string | null {
  if (baseUrl === null) return null;
  try {
    return new URL(baseUrl).origin;
  } catch {
    return 'invalid';
  }
}

/** The failures of one workspace and provider (and endpoint), gathered from the rows. */
interface ProviderFailures {
  rows: ModelFailureRow[];
  provider: string;
  endpoint: string | null;
}

/** Groups failure rows by workspace, provider and endpoint. */
function byProvider(rows: readonly ModelFailureRow[]): ProviderFailures[] {
  const groups = new Map<string, ProviderFailures>();
  for (const row of rows) {
    const provider = row.provider ?? 'unknown';
    const endpoint = endpointOf(row.baseUrl);
    const id = JSON.stringify([row.workspace.id, provider, endpoint]);
    const group = groups.get(id) ?? { rows: [], provider, endpoint };
    group.rows.push(row);
    groups.set(id, group);
  }
  return [...groups.values()];
}

/** The payload's figures of one provider's failures. */
function figures(rows: readonly ModelFailureRow[]): Pick<ModelErrorsPayload, 'failures' | 'byCode' | 'agents' | 'sampleRunIds'> {
  const byCode: Partial<Record<ModelErrorCode, number>> = {};
  const agents = new Map<string, number>();
  for (const row of rows) {
    byCode[row.code as ModelErrorCode] = (byCode[row.code as ModelErrorCode] ?? 0) + row.failures;
    agents.set(row.agentId, (agents.get(row.agentId) ?? 0) + row.failures);
  }
  const newest = [...rows].sort((a, b) => b.lastAt.getTime() - a.lastAt.getTime());
  return {
    failures: rows.reduce((sum, row) => sum + row.failures, 0),
    byCode,
    agents: [...agents].map(([agentId, failures]) => ({ agentId, failures })).sort((a, b) => b.failures - a.failures || a.agentId.localeCompare(b.agentId)).slice(0, 20),
    sampleRunIds: [...new Set(newest.flatMap((row) => row.runIds))].slice(0, 10),
  };
}

/**
 * `platform.model_errors`, one per workspace and provider (with the agent's
 * own endpoint, if any) that had at least `min` failures in the window,
 * keyed by provider and endpoint.
 */
export function modelErrorDrafts(rows: readonly ModelFailureRow[], min: number, windowMs: number): Array<OpsDraft<typeof OPS_FACT_KINDS.modelErrors>> {
  return byProvider(rows).flatMap(({ rows: group, provider, endpoint }) => {
    const counted = figures(group);
    if (counted.failures < min) return [];
    const key = endpoint === null ? provider : `${provider}@${endpoint}`;
    const codes = Object.entries(counted.byCode).map(([code, n]) => `${code} ${n}`).join(', ');
    const where = endpoint === null ? `${provider} (the operator's endpoint)` : `${provider} at ${endpoint}`;
    return [
      {
        kind: OPS_FACT_KINDS.modelErrors,
        workspace: group[0]!.workspace,
        key,
        subjectId: `model:${key}`,
        payload: {
          summary: summary(`${counted.failures} run${counted.failures === 1 ? '' : 's'} failed on model errors from ${where} in the last ${formatDuration(windowMs)}: ${codes}`),
          windowMs,
          provider,
          endpoint,
          ...counted,
        },
      },
    ];
  });
}
