import { checkAcknowledgedStored, checkAllAcknowledged, checkApiListing, checkNoDuplicateFacts, checkNoUnacknowledgedStored, checkSeqDense, type LoadView } from '../fact-checks';
import type { StoredFact } from '../rows';

/** The fact checks of the chaos harness on hand-made rows: each passes on a sound state and fails on its violation. */
const fact = (n: number | null, seq: number, id = `id-${n ?? `p${seq}`}`): StoredFact => ({ id, seq, kind: n === null ? 'agent.run.queued' : 'chaos.build', subjectId: String(n), idempotencyKey: null, n });
const loadOf = (ns: number[], extra: Partial<LoadView> = {}): LoadView => ({ offered: ns.length, acknowledged: new Map(ns.map((n) => [n, `id-${n}`])), refused: [], givenUp: [], ...extra });
const sound = [fact(0, 1), fact(1, 2), fact(null, 3), fact(2, 4)];

describe('fact checks', () => {
  it('offered facts acknowledged: fails on a refused fact and on one given up', () => {
    expect(checkAllAcknowledged(loadOf([0, 1, 2])).pass).toBe(true);
    const refused = { ...loadOf([0, 1]), offered: 3, refused: [{ n: 2, status: 400 }] };
    expect(checkAllAcknowledged(refused)).toMatchObject({ pass: false, found: '2, 1 refused (400)' });
    expect(checkAllAcknowledged({ ...loadOf([0, 1]), offered: 3, givenUp: [2] }).pass).toBe(false);
  });

  it('acknowledged facts stored: fails when an acknowledged id is not stored', () => {
    expect(checkAcknowledgedStored(loadOf([0, 1, 2]), sound).pass).toBe(true);
    const lost = checkAcknowledgedStored(loadOf([0, 1, 2]), sound.filter((f) => f.n !== 1));
    expect(lost).toMatchObject({ pass: false, found: '2 stored, 1 lost (e.g. n=1)' });
  });

  it('stored facts acknowledged: fails on a stored fact under another id, unless the load gave up on it', () => {
    const otherId = [fact(0, 1), fact(1, 2, 'phantom'), fact(2, 3)];
    expect(checkNoUnacknowledgedStored(loadOf([0, 1, 2]), sound).pass).toBe(true);
    expect(checkNoUnacknowledgedStored(loadOf([0, 1, 2]), otherId).pass).toBe(false);
    expect(checkNoUnacknowledgedStored({ ...loadOf([0, 2]), givenUp: [1] }, otherId).pass).toBe(true);
  });

  it('no duplicate fact: fails when one offered fact is stored twice, under any id', () => {
    expect(checkNoDuplicateFacts(sound).pass).toBe(true);
    expect(checkNoDuplicateFacts([...sound, fact(1, 5, 'again')]).pass).toBe(false);
  });

  it('seq dense: fails on a gap, a repeat, and a start other than 1', () => {
    expect(checkSeqDense(sound).pass).toBe(true);
    expect(checkSeqDense([fact(0, 1), fact(1, 3)]).pass).toBe(false);
    expect(checkSeqDense([fact(0, 1), fact(1, 1)]).pass).toBe(false);
    expect(checkSeqDense([fact(0, 2), fact(1, 3)]).pass).toBe(false);
  });

  it('API listing: fails when the API misses a fact or lists them out of seq order', () => {
    const ids = ['id-0', 'id-1', 'id-p3', 'id-2'];
    expect(checkApiListing(ids, sound).pass).toBe(true);
    expect(checkApiListing(ids.slice(0, 3), sound).pass).toBe(false);
    expect(checkApiListing(['id-1', 'id-0', 'id-p3', 'id-2'], sound).pass).toBe(false);
  });
});
