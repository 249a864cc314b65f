import fc from 'fast-check';
import { prng } from '@switchyard/testing';
import { benjaminiHochberg, compareVersions, fisherExactTwoSided, noiseFloor, type CaseTrials } from '../src';

const trials = (rand: () => number, passRate: number, n = 5) => Array.from({ length: n }, () => rand() < passRate);

describe('the statistics of an eval diff (issue 35 §3)', () => {
  it('computes the two-sided Fisher exact test as the textbook tables give it', () => {
    // Fisher's tea-tasting style tables, with p-values as R's fisher.test prints them.
    expect(fisherExactTwoSided(1, 10, 11, 14)).toBeCloseTo(0.002759, 5);
    expect(fisherExactTwoSided(3, 4, 1, 4)).toBeCloseTo(0.4857, 4);
    expect(fisherExactTwoSided(5, 5, 0, 5)).toBeCloseTo(2 / 252, 8);
    expect(fisherExactTwoSided(2, 5, 2, 5)).toBeCloseTo(1, 10);
    expect(fisherExactTwoSided(0, 0, 0, 0)).toBe(1);
  });

  it('keeps p in [0, 1] and symmetric in the two versions (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 30 }), (n1, n2, k1, k2) => {
        const a = Math.min(k1, n1);
        const b = Math.min(k2, n2);
        const p = fisherExactTwoSided(a, n1, b, n2);
        expect(p).toBeGreaterThan(0);
        expect(p).toBeLessThanOrEqual(1);
        expect(fisherExactTwoSided(b, n2, a, n1)).toBeCloseTo(p, 10);
        // Passes and failures swapped is the same table mirrored.
        expect(fisherExactTwoSided(n1 - a, n1, n2 - b, n2)).toBeCloseTo(p, 10);
      }),
    );
  });

  it('adjusts p-values by Benjamini–Hochberg: q ≥ p, q ≤ 1, and q keeps the order of p', () => {
    expect(benjaminiHochberg([0.01, 0.04, 0.03, 0.005])).toEqual([0.02, 0.04, 0.04, 0.02]);
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 50 }), (ps) => {
        const q = benjaminiHochberg(ps);
        ps.forEach((p, i) => {
          expect(q[i]!).toBeGreaterThanOrEqual(p - 1e-12);
          expect(q[i]!).toBeLessThanOrEqual(1);
          ps.forEach((other, j) => {
            if (p < other) expect(q[i]!).toBeLessThanOrEqual(q[j]! + 1e-12);
          });
        });
      }),
    );
  });

  it('finds exactly the cases a changed rule affects among 10 cases × 5 trials, and calls the direction', () => {
    const rand = prng(7);
    const affected = new Set(['case-2', 'case-5', 'case-7']);
    const rates = [1, 0.9, 1, 0.8, 1, 1, 0.6, 1, 0.9, 1];
    const cases: CaseTrials[] = rates.map((r, i) => {
      const id = `case-${i}`;
      return { caseId: id, a: trials(rand, affected.has(id) ? 1 : r), b: trials(rand, affected.has(id) ? 0 : r) };
    });
    const diff = compareVersions(cases);
    expect(diff.cases.filter((c) => c.changed).map((c) => c.caseId)).toEqual(['case-2', 'case-5', 'case-7']);
    expect(diff.verdict).toBe('worse');
    expect(diff.drivers).toEqual(['case-2', 'case-5', 'case-7']);
    const reversed = compareVersions(cases.map((c) => ({ caseId: c.caseId, a: c.b, b: c.a })));
    expect(reversed.verdict).toBe('better');
  });

  it('reports no detectable difference for two identical versions in 20 of 20 reruns with seeded nondeterminism', () => {
    const rates = [1, 0.5, 0.7, 0.3, 0.9, 0.5, 0.6, 1, 0.4, 0.8];
    for (let seed = 1; seed <= 20; seed++) {
      const rand = prng(seed);
      const cases = rates.map((r, i) => ({ caseId: `case-${i}`, a: trials(rand, r), b: trials(rand, r) }));
      expect({ seed, verdict: compareVersions(cases).verdict }).toEqual({ seed, verdict: 'no detectable difference' });
    }
  });

  it('measures the noise floor from a version against itself: zero for a steady model, large for a coin', () => {
    expect(noiseFloor([{ caseId: 'x', a: [true, true, true, true], b: [false, false, false, false] }])).toBe(0);
    expect(noiseFloor([{ caseId: 'x', a: [true, true, false, false], b: [true, false, true, false] }])).toBe(1);
  });
});
