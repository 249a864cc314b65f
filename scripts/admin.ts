/**
 * `npm run admin -- <command>`: operator commands that need no token. They reach DATABASE_URL /
 * REDIS_URL, else the servers of the running `npm start` (never a default URL).
 *   create-workspace NAME        creates a workspace and prints its first admin token (once)
 *   dead-letters list [STREAM] [--replayed]
 *                                 lists the dead letters not replayed (STREAM: ingest, facts; default
 *                                 every stream; --replayed: the replayed ones too), from PostgreSQL
 *   dead-letters replay ID|--all [STREAM]
 *                                 puts dead letters back on their stream and marks them replayed
 */
import { BaseEnvSchema, loadConfig } from '@switchyard/config';
import { AppError, STREAMS, WorkspaceSlugSchema } from '@switchyard/contracts';
import { createWorkspace as createWorkspaceIn, SqlDeadLetterStore, SqlPool } from '@switchyard/db';
import { closeRedis, createRedis, replayDeadLetter, toKey } from '@switchyard/redis';
import { useRunningPlatform } from './lib/operator-env';

const STREAM_NAMES: readonly string[] = Object.values(STREAMS);

async function createWorkspace(name: string | undefined): Promise<void> {
  const slug = WorkspaceSlugSchema.safeParse(name);
  if (!slug.success) throw new Error('usage: create-workspace NAME (lowercase letters, digits and hyphens, 2-63 characters)');
  const config = loadConfig(BaseEnvSchema);
  const sql = new SqlPool({ databaseUrl: config.DATABASE_URL, poolMax: 1, applicationName: 'admin' });
  try {
    const created = await createWorkspaceIn(sql, slug.data);
    console.log(`workspace ${slug.data} created (${created.workspaceId})`);
    console.log('admin token (shown once, store it now):');
    console.log(created.token);
  } finally {
    await sql.$disconnect();
  }
}

async function deadLetters(action: string | undefined, rest: string[]): Promise<void> {
  const config = loadConfig(BaseEnvSchema);
  const name = rest.find((arg) => STREAM_NAMES.includes(arg));
  const stream = name === undefined ? undefined : toKey(config.REDIS_PREFIX, name);
  const sql = new SqlPool({ databaseUrl: config.DATABASE_URL, poolMax: 1, applicationName: 'admin' });
  const store = new SqlDeadLetterStore(sql);
  try {
    if (action === 'list') {
      const letters = await store.list({ stream, includeReplayed: rest.includes('--replayed'), limit: 100_000 });
      for (const letter of letters) console.log(JSON.stringify(letter));
      console.log(`${letters.length} dead letter(s)${stream ? ` of ${stream}` : ''}`);
    } else if (action === 'replay') {
      const target = rest.find((arg) => !STREAM_NAMES.includes(arg));
      if (!target) throw new Error('usage: dead-letters replay ID|--all [STREAM]');
      const ids = target === '--all' ? (await store.list({ stream, limit: 100_000 })).map((letter) => letter.id) : [target];
      const redis = createRedis(config.REDIS_URL);
      try {
        let replayed = 0;
        for (const id of ids) {
          const result = await replayDeadLetter(redis, store, id);
          if (result.ok) replayed += 1;
          else console.log(`dead letter ${id}: ${result.reason.replace('_', ' ')}`);
        }
        console.log(`${replayed} dead letter(s) replayed`);
      } finally {
        await closeRedis(redis);
      }
    } else {
      throw new Error('usage: dead-letters list|replay …');
    }
  } finally {
    await sql.$disconnect();
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  useRunningPlatform();
  if (command === 'create-workspace') return createWorkspace(rest[0]);
  if (command === 'dead-letters') return deadLetters(rest[0], rest.slice(1));
  throw new Error('usage: npm run admin -- create-workspace NAME | dead-letters list|replay …');
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof AppError || error instanceof Error ? error.message : error);
  process.exit(1);
});
