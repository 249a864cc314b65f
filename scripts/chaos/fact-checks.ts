import { type CheckResult, type StoredFact, zeroCheck } from './rows';

/** What the load generator knows: the facts it offered and the ids the gateway acknowledged. */
export interface LoadView {
  offered: number;
  acknowledged: ReadonlyMap<number, string>;
  refused: ReadonlyArray<{ n: number; status: number }>;
  givenUp: readonly number[];
}

/** Every offered fact was acknowledged (retrying on 5xx and broken connections): none refused, none given up. */
export function checkAllAcknowledged(load: LoadView): CheckResult {
  const statuses = [...new Set(load.refused.map((r) => r.status))].join('/');
  const refused = load.refused.length > 0 ? `, ${load.refused.length} refused (${statuses})` : '';
  const givenUp = load.givenUp.length > 0 ? `, ${load.givenUp.length} given up` : '';
  return {
    name: 'offered facts acknowledged',
    expected: `${load.offered}`,
    found: `${load.acknowledged.size}${refused}${givenUp}`,
    pass: load.acknowledged.size === load.offered,
  };
}

const loadFacts = (stored: readonly StoredFact[]) => stored.filter((fact) => fact.n !== null);

/** Every acknowledged id is a stored fact (a 2xx means stored). */
export function checkAcknowledgedStored(load: LoadView, stored: readonly StoredFact[]): CheckResult {
  const ids = new Set(stored.map((fact) => fact.id));
  const lost = [...load.acknowledged].filter(([, id]) => !ids.has(id)).map(([n]) => `n=${n}`);
  return {
    name: 'acknowledged facts stored',
    expected: `${load.acknowledged.size} stored, 0 lost`,
    found: `${load.acknowledged.size - lost.length} stored, ${lost.length} lost${lost.length ? ` (e.g. ${lost.slice(0, 3).join(', ')})` : ''}`,
    pass: lost.length === 0,
  };
}

/** No stored load fact the gateway did not acknowledge, unless the load gave up on it (it may have been stored). */
export function checkNoUnacknowledgedStored(load: LoadView, stored: readonly StoredFact[]): CheckResult {
  const acked = new Set(load.acknowledged.values());
  const givenUp = new Set(load.givenUp);
  const extra = loadFacts(stored).filter((fact) => !acked.has(fact.id) && !givenUp.has(fact.n!));
  return zeroCheck('stored facts acknowledged (no other id)', extra.length, 'unacknowledged', extra.map((f) => `n=${f.n}`));
}

/** No load fact stored twice (two rows of one offered fact, whatever their ids and keys). */
export function checkNoDuplicateFacts(stored: readonly StoredFact[]): CheckResult {
  const seen = new Map<number, number>();
  for (const fact of loadFacts(stored)) seen.set(fact.n!, (seen.get(fact.n!) ?? 0) + 1);
  const twice = [...seen].filter(([, count]) => count > 1).map(([n]) => `n=${n}`);
  return zeroCheck('no duplicate fact', twice.length, 'stored twice', twice);
}

/** The workspace's seq is 1, 2, …, N over every stored fact: no gap, no repeat. */
export function checkSeqDense(stored: readonly StoredFact[]): CheckResult {
  const seqs = stored.map((fact) => fact.seq).sort((a, b) => a - b);
  let gaps = 0;
  let repeats = 0;
  for (let i = 1; i < seqs.length; i++) {
    if (seqs[i] === seqs[i - 1]) repeats += 1;
    else if (seqs[i]! !== seqs[i - 1]! + 1) gaps += 1;
  }
  const startsAtOne = seqs.length === 0 || seqs[0] === 1;
  return {
    name: 'seq dense per workspace',
    expected: `1..${seqs.length}`,
    found: seqs.length === 0 ? 'no facts' : `${seqs[0]}..${seqs.at(-1)}, ${gaps} gaps, ${repeats} repeats`,
    pass: startsAtOne && gaps === 0 && repeats === 0,
  };
}

/** The public API's listing (`GET /events?after=`, paged) is exactly the stored facts, in seq order. */
export function checkApiListing(apiIds: readonly string[], stored: readonly StoredFact[]): CheckResult {
  const inOrder = [...stored].sort((a, b) => a.seq - b.seq).map((fact) => fact.id);
  const firstDiff = inOrder.findIndex((id, i) => apiIds[i] !== id);
  const same = apiIds.length === inOrder.length && firstDiff < 0;
  return {
    name: 'API lists the stored facts',
    expected: `${inOrder.length} in seq order`,
    found: same ? `${apiIds.length} in seq order` : `${apiIds.length}, first difference at position ${firstDiff < 0 ? inOrder.length : firstDiff}`,
    pass: same,
  };
}
