/**
 * `npm run admin -- <command>`: operator commands that need no token. They reach DATABASE_URL /
 * REDIS_URL, else the servers of the running `npm start` (never a default URL).
 *   create-workspace NAME        creates a workspace and prints its first admin token (once)
 *   dead-letters list [STREAM]    lists dead letters (STREAM: ingest, facts; default ingest)
 *   dead-letters replay ID|--all [STREAM]
 *                                 puts dead letters back on their stream
 */
import { BaseEnvSchema, loadConfig } from '@switchyard/config';
import { AppError, GROUPS, STREAMS, WorkspaceSlugSchema } from '@switchyard/contracts';
import { createPrismaClient } from '@switchyard/db';
import { closeRedis, createRedis, deadLetterKeys, listDeadLetters, replayDeadLetter } from '@switchyard/redis';
import { PrismaAuthStore } from '../services/gateway/src/adapters/prisma-auth-store';
import { useRunningPlatform } from './lib/operator-env';

const GROUP_OF: Record<string, string> = { [STREAMS.ingest]: GROUPS.eventLog, [STREAMS.facts]: GROUPS.matcher };

async function createWorkspace(name: string | undefined): Promise<void> {
  const slug = WorkspaceSlugSchema.safeParse(name);
  if (!slug.success) throw new Error('usage: create-workspace NAME (lowercase letters, digits and hyphens, 2-63 characters)');
  const config = loadConfig(BaseEnvSchema);
  const prisma = createPrismaClient({ databaseUrl: config.DATABASE_URL, poolMax: 1 });
  try {
    const created = await new PrismaAuthStore(prisma).createWorkspace(slug.data);
    console.log(`workspace ${slug.data} created (${created.workspaceId})`);
    console.log('admin token (shown once, store it now):');
    console.log(created.token);
  } finally {
    await prisma.$disconnect();
  }
}

async function deadLetters(action: string | undefined, rest: string[]): Promise<void> {
  const config = loadConfig(BaseEnvSchema);
  const stream = rest.find((arg) => arg in GROUP_OF) ?? STREAMS.ingest;
  const keys = deadLetterKeys(config.REDIS_PREFIX, stream, GROUP_OF[stream]!);
  const redis = createRedis(config.REDIS_URL);
  try {
    if (action === 'list') {
      const letters = await listDeadLetters(redis, keys, 1000);
      for (const letter of letters) console.log(JSON.stringify(letter));
      console.log(`${letters.length} dead letter(s) on ${keys.stream}`);
    } else if (action === 'replay') {
      const target = rest.find((arg) => !(arg in GROUP_OF));
      if (!target) throw new Error('usage: dead-letters replay ID|--all [STREAM]');
      const ids = target === '--all' ? (await listDeadLetters(redis, keys, 100_000)).map((l) => l.deadLetterId) : [target];
      let replayed = 0;
      for (const id of ids) if (await replayDeadLetter(redis, keys, id)) replayed += 1;
      console.log(`${replayed} dead letter(s) replayed`);
    } else {
      throw new Error('usage: dead-letters list|replay …');
    }
  } finally {
    await closeRedis(redis);
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
