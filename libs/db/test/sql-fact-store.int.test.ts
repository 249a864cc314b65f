import type { Client } from 'pg';
import type { AcceptedFact } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import { SqlFactStore, SqlPool } from '@switchyard/db';
import { createTestSql, type TestSql } from '@switchyard/testing';

/**
 * The fact store on a real PostgreSQL: the one-statement write for new facts,
 * and the path a batch takes when a fact in it was stored before (the write
 * fails on a unique index, nothing is written, the batch is resolved against
 * what is stored) — seqs stay dense either way.
 */
describe('SqlFactStore', () => {
  let t: TestSql;
  let pg: Client;
  let store: SqlFactStore;
  const workspaceId = newId();

  beforeAll(async () => {
    t = await createTestSql();
    pg = t.pg;
    await pg.query(`INSERT INTO workspaces (id, slug) VALUES ($1, 'store')`, [workspaceId]);
    await pg.query(`INSERT INTO workspace_event_seq (workspace_id, last_seq) VALUES ($1, 0)`, [workspaceId]);
    store = new SqlFactStore(t.sql);
  });
  afterAll(async () => {
    await t?.close();
  });

  const fact = (overrides: Partial<AcceptedFact> = {}): AcceptedFact => ({
    id: newId(),
    workspaceId,
    workspace: 'store',
    kind: 'store.fact',
    subject: { type: 't', id: '1' },
    payload: { n: 1 },
    ts: new Date().toISOString(),
    ...overrides,
  });
  const seqs = async () => (await pg.query<{ seq: string }>(`SELECT seq FROM platform_events WHERE workspace_id = $1 ORDER BY seq`, [workspaceId])).rows.map((r) => Number(r.seq));

  it('writes new facts with the next seqs, in batch order', async () => {
    const [a, b] = [fact(), fact({ idempotencyKey: 'k-1' })];
    const outcomes = await store.append([a, b]);
    expect(outcomes.map((o) => o.status)).toEqual(['inserted', 'inserted']);
    expect(outcomes.map((o) => (o.status === 'inserted' ? o.fact.seq : 0))).toEqual([1, 2]);
    expect(await seqs()).toEqual([1, 2]);
  });

  it('a batch with a stored id and a stored key writes only its new fact, and no seq is lost', async () => {
    const [stored] = (await pg.query<{ id: string }>(`SELECT id::text AS id FROM platform_events WHERE seq = 1 AND workspace_id = $1`, [workspaceId])).rows;
    const again = fact({ id: stored!.id });
    const sameKey = fact({ idempotencyKey: 'k-1' });
    const fresh = fact();
    const outcomes = await store.append([again, sameKey, fresh]);
    expect(outcomes[0]).toMatchObject({ status: 'existing', fact: { id: stored!.id, seq: 1 } });
    expect(outcomes[1]).toMatchObject({ status: 'duplicate' });
    expect(outcomes[2]).toMatchObject({ status: 'inserted', fact: { id: fresh.id, seq: 3 } });
    expect(await seqs()).toEqual([1, 2, 3]);
  });

  it('repeats within a batch resolve to their first fact; a workspace without a seq row is unknown', async () => {
    const first = fact({ idempotencyKey: 'k-2' });
    const repeat = fact({ idempotencyKey: 'k-2' });
    const stranger = fact({ workspaceId: newId() });
    const outcomes = await store.append([first, repeat, stranger]);
    expect(outcomes).toEqual([
      expect.objectContaining({ status: 'inserted', fact: expect.objectContaining({ seq: 4 }) }),
      { status: 'duplicate', originalId: first.id },
      { status: 'unknown_workspace' },
    ]);
    expect(await seqs()).toEqual([1, 2, 3, 4]);
  });

  it('issue 13: a batch with values PostgreSQL refuses stores the others in order and reports only those refused', async () => {
    const before = await seqs();
    const clean = [fact(), fact({ statedActor: { type: 'service', id: 'ci' } }), fact()];
    const nul = fact({ payload: { text: 'a\u0000b' }, idempotencyKey: 'nul-1' });
    const surrogate = fact({ payload: { text: 'lone \ud800' } });
    const nulSubject = fact({ subject: { type: 't', id: 'x\u0000' } });
    const outcomes = await store.append([clean[0]!, nul, clean[1]!, surrogate, nulSubject, clean[2]!]);
    expect(outcomes.map((o) => o.status)).toEqual(['inserted', 'refused', 'inserted', 'refused', 'refused', 'inserted']);
    for (const refused of [outcomes[1], outcomes[3], outcomes[4]]) {
      expect(refused).toMatchObject({ status: 'refused', reason: expect.stringMatching(/SQLSTATE 22/) });
    }
    const last = before.at(-1)!;
    expect(await seqs()).toEqual([...before, last + 1, last + 2, last + 3]);
    const stored = await pg.query<{ id: string; stated_actor: unknown }>(
      `SELECT id::text AS id, stated_actor FROM platform_events WHERE seq > $1 AND workspace_id = $2 ORDER BY seq`,
      [last, workspaceId],
    );
    expect(stored.rows).toEqual([
      { id: clean[0]!.id, stated_actor: null },
      { id: clean[1]!.id, stated_actor: { type: 'service', id: 'ci' } },
      { id: clean[2]!.id, stated_actor: null },
    ]);
  });

  it('issue 13: a connection failure is thrown (to be retried), not reported as refused', async () => {
    const closed = new SqlFactStore(new SqlPool({ databaseUrl: t.db.url.replace(/:(\d+)\//, ':1/'), poolMax: 1, connectionTimeoutMillis: 1000 }));
    await expect(closed.append([fact()])).rejects.toThrow();
  });
});
