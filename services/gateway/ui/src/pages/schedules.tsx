import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, errorText, wsPath } from '../api';
import { when } from '../format';
import { useFacts } from '../live';
import { useWorkspace } from '../session';
import type { Schedule, ScheduleFire } from '../types';

/** A schedule's timing in words: its cron, or its interval. */
function timingOf(schedule: Schedule): string {
  if (schedule.cron !== null) return schedule.cron;
  const ms = schedule.everyMs ?? 0;
  return ms % 1000 === 0 ? `every ${ms / 1000} s` : `every ${ms} ms`;
}

/** Whether a fact is a schedule's change or one of its fires: either moves a next fire time. */
const touchesSchedules = (fact: { kind: string; payload: Record<string, unknown> }) => fact.kind.startsWith('schedule.') || typeof fact.payload.schedule === 'object';

/**
 * The workspace's schedules (docs/schedules.md): timing, zone, what a fire
 * records, and the next fire shown in the schedule's own zone (as the API
 * computes it, `nextFireLocal`), the instant in the tooltip. Members may
 * fire one now. Live through schedule facts and fires.
 */
export function SchedulesPage() {
  const { slug, role } = useWorkspace();
  const queryClient = useQueryClient();
  const [fired, setFired] = useState<{ name: string; fire: ScheduleFire } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const live = useFacts(
    slug,
    (fact) => {
      if (touchesSchedules(fact)) void queryClient.invalidateQueries({ queryKey: ['schedules', slug] });
    },
    [['schedules', slug]],
  );
  const schedules = useQuery({
    queryKey: ['schedules', slug],
    queryFn: () => api<{ schedules: Schedule[] }>('GET', wsPath(slug, '/schedules')).then((r) => r.schedules),
    enabled: live,
  });
  const fireNow = async (schedule: Schedule) => {
    setError(null);
    try {
      setFired({ name: schedule.name, fire: await api<ScheduleFire>('POST', wsPath(slug, `/schedules/${schedule.id}/fire`)) });
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <section>
      <div className="page-head">
        <h1>Schedules</h1>
        <span className="badge">{schedules.data?.length ?? '…'}</span>
      </div>
      {(schedules.error || error) && <p role="alert" className="error">{error ?? errorText(schedules.error)}</p>}
      {fired && (
        <p role="status" data-testid="fired">
          Fired {fired.name}: fact <Link href={`/events/${fired.fire.factId}`}>{fired.fire.factId}</Link>
        </p>
      )}
      <div className="table-wrap">
        <table data-testid="schedules">
          <thead>
            <tr>
              <th>Name</th>
              <th>When</th>
              <th>Time zone</th>
              <th>Next fire (its zone)</th>
              <th>Records</th>
              <th className="hide-narrow">Missed slots</th>
              {role !== 'viewer' && <th />}
            </tr>
          </thead>
          <tbody>
            {schedules.data?.map((schedule) => (
              <tr key={schedule.id} data-schedule={schedule.name}>
                <td>{schedule.name}</td>
                <td>
                  <code>{timingOf(schedule)}</code>
                </td>
                <td>{schedule.timezone}</td>
                <td data-testid="next-fire" title={schedule.nextFireAt ? when(schedule.nextFireAt) : undefined}>
                  {schedule.enabled ? (schedule.nextFireLocal ?? '—') : 'disabled'}
                </td>
                <td>
                  <code>{schedule.emit.kind}</code>
                </td>
                <td className="hide-narrow">
                  {schedule.missed === 'fire_once' ? 'fire once, late' : 'skip'}
                  {schedule.skippedSlots > 0 && ` (${schedule.skippedSlots} passed over)`}
                </td>
                {role !== 'viewer' && (
                  <td>
                    <button type="button" onClick={() => void fireNow(schedule)}>
                      Fire now
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
        {schedules.data?.length === 0 && <p className="empty">No schedules yet: create one with POST /v1/workspaces/{slug}/schedules or the create_schedule tool.</p>}
      </div>
    </section>
  );
}
