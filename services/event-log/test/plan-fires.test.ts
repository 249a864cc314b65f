import { planFires } from '../src/schedules/plan-fires';

const at = (iso: string) => new Date(iso);
const paris = { cron: '*/1 * * * *', timezone: 'Europe/Paris' };
const iso = (plan: ReturnType<typeof planFires>) => ({ ...plan, fires: plan.fires.map((f) => ({ ...f, slotAt: f.slotAt.toISOString() })), next: plan.next?.toISOString() });

/** Which slots fire for a due schedule: on time within the grace, missed ones by the policy. */
describe('planFires', () => {
  it('fires the one due slot on time', () => {
    expect(iso(planFires({ timing: paris, missed: 'skip', due: at('2026-12-05T07:00:00Z') }, at('2026-12-05T07:00:00.2Z'), 60_000))).toEqual({
      fires: [{ slotAt: '2026-12-05T07:00:00.000Z', late: false }],
      skipped: 0,
      next: '2026-12-05T07:01:00.000Z',
    });
  });

  it('skip: passes the missed slots over; fire_once: one late fire for the last missed', () => {
    const due = { timing: paris, due: at('2026-12-05T07:00:00Z') };
    const now = at('2026-12-05T07:03:10Z');
    expect(iso(planFires({ ...due, missed: 'skip' }, now, 60_000))).toMatchObject({ fires: [{ slotAt: '2026-12-05T07:03:00.000Z', late: false }], skipped: 3 });
    expect(iso(planFires({ ...due, missed: 'fire_once' }, now, 60_000))).toMatchObject({
      fires: [
        { slotAt: '2026-12-05T07:02:00.000Z', late: true },
        { slotAt: '2026-12-05T07:03:00.000Z', late: false },
      ],
      skipped: 2,
    });
  });

  it('a due slot older than the grace is missed too', () => {
    const plan = iso(planFires({ timing: { everyMs: 1000, anchor: at('2026-12-05T07:00:00Z') }, missed: 'fire_once', due: at('2026-12-05T07:00:00Z') }, at('2026-12-05T07:00:00.5Z'), 100));
    expect(plan).toEqual({ fires: [{ slotAt: '2026-12-05T07:00:00.000Z', late: true }], skipped: 0, next: '2026-12-05T07:00:01.000Z' });
  });
});
