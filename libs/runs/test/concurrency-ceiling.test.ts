import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MAX_AGENT_CONCURRENCY } from '@switchyard/contracts';

/**
 * One ceiling for an agent's concurrency (issue 33): MAX_AGENT_CONCURRENCY in
 * libs/contracts bounds `flow.concurrency` and the runner's slots per lane;
 * the SQL that reads a lane's concurrency cannot import it, so this holds its
 * bound to the constant.
 */
describe('the agent concurrency ceiling', () => {
  it('is the bound run_lane_concurrency applies', () => {
    const sql = readFileSync(path.join(__dirname, '../sql/run_lane_concurrency.sql'), 'utf8');
    const bound = /least\(greatest\(coalesce\(cap, 1\), 1\), (\d+)\)/.exec(sql)?.[1];
    expect(Number(bound)).toBe(MAX_AGENT_CONCURRENCY);
    expect(sql).toContain(`(1 to ${MAX_AGENT_CONCURRENCY})`);
  });
});
