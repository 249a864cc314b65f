import { Client } from 'pg';
import { createTestSql, PgBouncer, waitFor, type TestSql } from '@switchyard/testing';
import { SqlPool } from '../src';

/**
 * Issue 37 §6 (docs/scaling.md, decision 0061): PostgreSQL behind a real
 * PgBouncer in transaction mode, 2 server connections shared by many client
 * sessions. The pools work with `?pgbouncer=true` (statements unnamed, no
 * startup options); what needs a session of its own — LISTEN, a session
 * advisory lock: the event-log's outbox relay — does not, hence
 * DATABASE_DIRECT_URL.
 */
describe('behind PgBouncer in transaction mode', () => {
  let t: TestSql;
  let bouncer: PgBouncer;
  const closing: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    t = await createTestSql();
    bouncer = await PgBouncer.start(t.db.url, 2);
    await t.pg.query('CREATE TABLE pgbouncer_counter (id int PRIMARY KEY, n int NOT NULL)');
    await t.pg.query('INSERT INTO pgbouncer_counter VALUES (1, 0)');
  });
  afterAll(async () => {
    for (const close of closing.reverse()) await close().catch(() => undefined);
    await bouncer?.stop();
    await t?.close();
  });
  const throughBouncer = (flag: string) => `${bouncer.url(t.db.name)}${flag}`;

  it('refuses the pool without ?pgbouncer=true: PgBouncer rejects its startup options', async () => {
    const pool = new SqlPool({ databaseUrl: throughBouncer(''), poolMax: 1, applicationName: 'pgbouncer-test' });
    closing.push(() => pool.$disconnect());
    await expect(pool.$queryRawUnsafe('SELECT 1 AS one')).rejects.toThrow('unsupported startup parameter: options');
  });

  it('with ?pgbouncer=true, 16 client sessions on 2 server connections run 400 statements and 40 transactions correctly', async () => {
    const pool = new SqlPool({ databaseUrl: throughBouncer('?pgbouncer=true'), poolMax: 16, applicationName: 'pgbouncer-test' });
    closing.push(() => pool.$disconnect());
    const texts = ['SELECT $1::int + 1 AS n', 'SELECT $1::int * 2 AS n', 'SELECT $1::int - 1 AS n', 'SELECT $1::int AS n'];
    const answers = await Promise.all(Array.from({ length: 400 }, (_, i) => pool.$queryRawUnsafe<Array<{ n: number }>>(texts[i % 4]!, i)));
    expect(answers.map((rows) => rows[0]!.n)).toEqual(Array.from({ length: 400 }, (_, i) => [i + 1, i * 2, i - 1, i][i % 4]));
    await Promise.all(
      Array.from({ length: 40 }, () =>
        pool.transaction(async (tx) => {
          const [row] = await tx.$queryRawUnsafe<Array<{ n: number }>>('SELECT n FROM pgbouncer_counter WHERE id = 1 FOR UPDATE');
          await tx.$executeRawUnsafe('UPDATE pgbouncer_counter SET n = $1 WHERE id = 1', row!.n + 1);
        }),
      ),
    );
    expect((await t.pg.query('SELECT n FROM pgbouncer_counter')).rows).toEqual([{ n: 40 }]);
  });

  it('loses a LISTEN and shares a session advisory lock: the outbox relay needs a direct connection', async () => {
    // One server connection: which one a session's next transaction gets is then certain.
    const single = await PgBouncer.start(t.db.url, 1);
    closing.push(() => single.stop());
    const viaSingle = () => single.url(t.db.name);
    const connect = async (url: string) => {
      const client = new Client({ connectionString: url });
      await client.connect();
      closing.push(() => client.end());
      return client;
    };
    const [pooled, direct] = [await connect(viaSingle()), await connect(t.db.url)];
    const heard = { pooled: 0, direct: 0 };
    pooled.on('notification', () => (heard.pooled += 1));
    direct.on('notification', () => (heard.direct += 1));
    await pooled.query('LISTEN pgbouncer_probe');
    await direct.query('LISTEN pgbouncer_probe');
    // Notified from another client session, which the pooler runs on the very server session that LISTENed.
    const other = await connect(viaSingle());
    for (let i = 0; i < 5; i++) await other.query("SELECT pg_notify('pgbouncer_probe', 'x')");
    await waitFor(async () => heard.direct === 5, { timeoutMs: 10_000, what: 'the direct LISTEN' });
    expect(heard.pooled).toBe(0);

    const [first, second] = [await connect(viaSingle()), await connect(viaSingle())];
    const take = async (client: Client) => (await client.query<{ held: boolean }>('SELECT pg_try_advisory_lock(4242) AS held')).rows[0]!.held;
    // Two sessions both "hold" the leader lock (it belongs to the server connection they share): two relays would lead.
    expect([await take(first), await take(second)]).toEqual([true, true]);
  });
});
