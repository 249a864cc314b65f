import type { Client } from 'pg';
import { apiClient } from '@switchyard/testing';
import type { CheckResult } from './rows';
import { zeroCheck } from './rows';

/**
 * The scheduler scenario (issue 30): two every-second schedules, one per
 * missed-slot policy, fire in a workspace of their own (so the load's checks
 * see none of their facts) while the kills run — every event-log replica
 * fires schedules, so a kill of one is a kill of a firing process. Once the
 * load ends they are disabled and checked: no slot fired twice, every slot
 * from the first fire to the last either fired or was counted as passed over,
 * every fire stored as exactly one fact.
 */

/** The workspace the schedules fire in. */
export const SCHEDULE_WORKSPACE = 'chaos-time';

/** The scenario's schedules: one per missed-slot policy. */
export const CHAOS_SCHEDULES = [
  { name: 'every-second-fire-once', everyMs: 1000, missed: 'fire_once', emit: { kind: 'chaos.schedule.fire_once' } },
  { name: 'every-second-skip', everyMs: 1000, missed: 'skip', emit: { kind: 'chaos.schedule.skip' } },
] as const;

/** The schedules as created: name and id. */
export type ChaosSchedules = Array<{ name: string; id: string }>;

/** Creates the schedules with the workspace's admin token. */
export async function createSchedules(gatewayUrl: string, token: string): Promise<ChaosSchedules> {
  const api = apiClient(gatewayUrl, token);
  const created: ChaosSchedules = [];
  for (const schedule of CHAOS_SCHEDULES) {
    const answer = await api<{ id: string }>('POST', `/v1/workspaces/${SCHEDULE_WORKSPACE}/schedules`, schedule);
    if (answer.status !== 201) throw new Error(`creating schedule ${schedule.name} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    created.push({ name: schedule.name, id: answer.body.id });
  }
  return created;
}

/** Disables the schedules (retried: the gateway may be coming back from a kill). */
export async function disableSchedules(gatewayUrl: string, token: string, schedules: ChaosSchedules): Promise<void> {
  const api = apiClient(gatewayUrl, token);
  for (const { id } of schedules) {
    for (let attempt = 0; ; attempt++) {
      const answer = await api('PATCH', `/v1/workspaces/${SCHEDULE_WORKSPACE}/schedules/${id}`, { enabled: false }).catch(() => ({ status: 0 }));
      if (answer.status === 200) break;
      if (attempt === 30) throw new Error(`disabling schedule ${id} answered ${answer.status}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** What one schedule did, for the checks and the report. */
export interface ScheduleOutcome {
  name: string;
  fires: number;
  late: number;
  skipped: number;
  /** Slots from the first fire's to the last's. */
  span: number;
  /** Slots with more than one fire. */
  doubled: number;
  /** Fires whose fact is not stored exactly once. */
  unstored: number;
}

/** Reads what each schedule did from PostgreSQL. */
export async function readScheduleOutcomes(pg: Client, schedules: ChaosSchedules): Promise<ScheduleOutcome[]> {
  const outcomes: ScheduleOutcome[] = [];
  for (const { name, id } of schedules) {
    const { rows } = await pg.query(
      `SELECT count(*)::int AS fires, count(*) FILTER (WHERE late)::int AS late,
              (count(*) - count(DISTINCT slot_at))::int AS doubled,
              coalesce(extract(epoch FROM max(slot_at) - min(slot_at))::int + 1, 0) AS span,
              (SELECT skipped_slots FROM schedules WHERE id = $1) AS skipped,
              count(*) FILTER (WHERE (SELECT count(*) FROM platform_events e WHERE e.id = f.fact_id) <> 1)::int AS unstored
         FROM schedule_fires f WHERE schedule_id = $1 AND NOT manual`,
      [id],
    );
    outcomes.push({ name, ...rows[0] });
  }
  return outcomes;
}

/** The scheduler scenario's checks over what the schedules did. */
export function checkSchedules(outcomes: readonly ScheduleOutcome[]): CheckResult[] {
  return outcomes.flatMap((o) => [
    zeroCheck(`schedule ${o.name}: one fire per slot`, o.doubled, 'slots fired twice'),
    {
      name: `schedule ${o.name}: every slot accounted`,
      expected: `${o.span} slots = fires + passed over`,
      found: `${o.fires} fires (${o.late} late) + ${o.skipped} passed over`,
      pass: o.fires > 0 && o.fires + o.skipped === o.span,
    },
    zeroCheck(`schedule ${o.name}: each fire one stored fact`, o.unstored, 'fires not stored exactly once'),
  ]);
}
