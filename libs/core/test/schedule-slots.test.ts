import { AppError, ErrorCode } from '@switchyard/contracts';
import { assertTiming, dueSlots, localTime, nextSlot, type ScheduleTiming } from '../src/schedule-slots';

const at = (iso: string) => new Date(iso);
const iso = (date: Date | null) => date?.toISOString() ?? null;
const paris = (cron: string): ScheduleTiming => ({ cron, timezone: 'Europe/Paris' });

/** Every slot of a timing in [from, to), walking nextSlot. */
function slotsBetween(timing: ScheduleTiming, from: string, to: string): string[] {
  const out: string[] = [];
  let slot = nextSlot(timing, new Date(at(from).getTime() - 1));
  while (slot && slot < at(to)) {
    out.push(slot.toISOString());
    slot = nextSlot(timing, slot);
  }
  return out;
}

describe('schedule slots (croner)', () => {
  it('*/1 in Europe/Paris has one slot per minute', () => {
    expect(slotsBetween(paris('*/1 * * * *'), '2026-12-05T07:00:00Z', '2026-12-05T07:03:00Z')).toEqual([
      '2026-12-05T07:00:00.000Z',
      '2026-12-05T07:01:00.000Z',
      '2026-12-05T07:02:00.000Z',
    ]);
  });

  // Spring forward in Paris: 2026-03-29 02:00 CET becomes 03:00 CEST (01:00Z).
  it('spring-forward day: a daily 02:30 fires once, at the first instant after the gap; hourly skips the missing hour', () => {
    expect(slotsBetween(paris('30 2 * * *'), '2026-03-28T00:00:00Z', '2026-03-31T00:00:00Z')).toEqual([
      '2026-03-28T01:30:00.000Z', // 02:30 CET
      '2026-03-29T01:00:00.000Z', // 02:30 does not exist: 03:00 CEST
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
    ]);
    expect(slotsBetween(paris('0 * * * *'), '2026-03-28T23:30:00Z', '2026-03-29T03:00:00Z')).toEqual([
      '2026-03-29T00:00:00.000Z', // 01:00 CET
      '2026-03-29T01:00:00.000Z', // 03:00 CEST (02:00 never happened)
      '2026-03-29T02:00:00.000Z', // 04:00 CEST
    ]);
  });

  // Fall back in Paris: 2026-10-25 03:00 CEST becomes 02:00 CET (01:00Z); 02:xx happens twice.
  it('fall-back day: a daily 02:30 fires once (first occurrence); sub-hourly fires at every absolute instant', () => {
    expect(slotsBetween(paris('30 2 * * *'), '2026-10-24T00:00:00Z', '2026-10-27T00:00:00Z')).toEqual([
      '2026-10-24T00:30:00.000Z',
      '2026-10-25T00:30:00.000Z', // 02:30 CEST, not again at 02:30 CET
      '2026-10-26T01:30:00.000Z', // 02:30 CET
    ]);
    expect(slotsBetween(paris('*/30 * * * *'), '2026-10-25T00:00:00Z', '2026-10-25T02:00:00Z')).toEqual([
      '2026-10-25T00:00:00.000Z', // 02:00 CEST
      '2026-10-25T00:30:00.000Z', // 02:30 CEST
      '2026-10-25T01:00:00.000Z', // 02:00 CET
      '2026-10-25T01:30:00.000Z', // 02:30 CET
    ]);
    expect(localTime(at('2026-10-25T01:30:00Z'), 'Europe/Paris')).toBe('2026-10-25 02:30:00 GMT+1');
  });

  it('everyMs counts from its anchor', () => {
    const timing = { everyMs: 1000, anchor: at('2026-01-01T00:00:00.500Z') };
    expect(iso(nextSlot(timing, at('2026-01-01T00:00:00Z')))).toBe('2026-01-01T00:00:00.500Z');
    expect(iso(nextSlot(timing, at('2026-01-01T00:00:00.500Z')))).toBe('2026-01-01T00:00:01.500Z');
  });

  it('due slots after downtime: how many, the latest, the next', () => {
    const due = dueSlots(paris('*/1 * * * *'), at('2026-12-05T07:00:00Z'), at('2026-12-05T07:10:30Z'));
    expect({ latest: iso(due.latest), count: due.count, next: iso(due.next) }).toEqual({
      latest: '2026-12-05T07:10:00.000Z',
      count: 11,
      next: '2026-12-05T07:11:00.000Z',
    });
    const every = dueSlots({ everyMs: 1000, anchor: at('2026-01-01T00:00:00Z') }, at('2026-01-01T00:00:05Z'), at('2026-01-01T00:00:09.2Z'));
    expect({ latest: iso(every.latest), count: every.count, next: iso(every.next) }).toEqual({
      latest: '2026-01-01T00:00:09.000Z',
      count: 5,
      next: '2026-01-01T00:00:10.000Z',
    });
  });

  it.each([
    ['61 * * * *', 'cron'],
    ['* * * * * *', 'cron'],
    ['0 0 30 2 *', 'cron'],
  ])('refuses %s with SCHEDULE_INVALID', (cron, field) => {
    const error = (() => {
      try {
        assertTiming({ cron, timezone: 'UTC' }, at('2026-01-01T00:00:00Z'));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe(ErrorCode.SCHEDULE_INVALID);
    expect((error as AppError).data).toMatchObject({ field });
  });
});
