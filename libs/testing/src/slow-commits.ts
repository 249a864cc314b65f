import { Client } from 'pg';

/** A running slow-commit load: `stop()` ends it and says how many commits it made. */
export interface SlowCommits {
  stop(): Promise<number>;
}

/**
 * Why this exists: issue 37's "commits are slow" condition, for tests and benchmarks alike. A
 * second PostgreSQL client inserts 2,000 rows of 1 KiB per statement in a loop, with
 * synchronous_commit on, into a scratch table of its own (emptied every 20 commits, dropped at
 * the end), so every other commit on the server waits behind a busy WAL.
 */
export async function startSlowCommits(databaseUrl: string): Promise<SlowCommits> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const table = `slow_commits_${process.pid}_${Date.now()}`;
  await client.query('SET synchronous_commit = on');
  await client.query(`CREATE TABLE ${table} (id bigserial PRIMARY KEY, body text)`);
  let going = true;
  let commits = 0;
  const loop = (async () => {
    while (going) {
      await client.query(`INSERT INTO ${table} (body) SELECT repeat(md5(random()::text), 32) FROM generate_series(1, 2000)`);
      commits++;
      if (commits % 20 === 0) await client.query(`TRUNCATE ${table}`);
    }
  })();
  return {
    stop: async () => {
      going = false;
      await loop;
      await client.query(`DROP TABLE IF EXISTS ${table}`);
      await client.end();
      return commits;
    },
  };
}
