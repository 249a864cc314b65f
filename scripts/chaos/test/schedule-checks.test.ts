import { checkSchedules, type ScheduleOutcome } from '../schedule-checks';

const outcome = (o: Partial<ScheduleOutcome>): ScheduleOutcome => ({ name: 's', fires: 10, late: 0, skipped: 0, span: 10, doubled: 0, unstored: 0, ...o });
const passes = (o: Partial<ScheduleOutcome>) => checkSchedules([outcome(o)]).map((check) => check.pass);

/** The scheduler scenario's checks on hand-made outcomes: each fails for its own fault only. */
describe('chaos: schedule checks', () => {
  it('passes when every slot fired once or was passed over, each fire stored once', () => {
    expect(passes({})).toEqual([true, true, true]);
    expect(passes({ fires: 7, late: 1, skipped: 3 })).toEqual([true, true, true]);
  });

  it('fails a doubled slot, a slot unaccounted, a fire not stored, and a schedule that never fired', () => {
    expect(passes({ doubled: 1 })).toEqual([false, true, true]);
    expect(passes({ fires: 8 })).toEqual([true, false, true]);
    expect(passes({ unstored: 2 })).toEqual([true, true, false]);
    expect(passes({ fires: 0, span: 0 })).toEqual([true, false, true]);
  });
});
