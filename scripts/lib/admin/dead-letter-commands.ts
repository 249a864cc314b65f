import { STREAMS } from '@switchyard/contracts';
import { SqlDeadLetterStore } from '@switchyard/db';
import { replayDeadLetter, toKey } from '@switchyard/redis';
import { type AdminCommand, type AdminContext, UsageError } from './admin-command';

const STREAM_NAMES: readonly string[] = Object.values(STREAMS);

/** Puts the dead letters `target` names (an id, or `--all` of `stream`) back on their stream. */
async function replay(context: AdminContext, store: SqlDeadLetterStore, target: string, stream: string | undefined): Promise<void> {
  const ids = target === '--all' ? (await store.list({ stream, limit: 100_000 })).map((letter) => letter.id) : [target];
  let replayed = 0;
  for (const id of ids) {
    const result = await replayDeadLetter(context.redis(), store, id);
    if (result.ok) replayed += 1;
    else context.print(`dead letter ${id}: ${result.reason.replace('_', ' ')}`);
  }
  context.print(`${replayed} dead letter(s) replayed`);
}

/**
 * `dead-letters list [STREAM] [--replayed]`: the dead letters not replayed (STREAM: ingest,
 * facts; default every stream; --replayed: the replayed ones too), from PostgreSQL.
 * `dead-letters replay ID|--all [STREAM]`: puts dead letters back on their stream and marks them replayed.
 */
export const deadLettersCommand: AdminCommand = {
  usage: 'list [ingest|facts] [--replayed]  |  replay ID|--all [ingest|facts]',
  summary: 'lists the dead letters, or puts them back on their stream',
  async run([action, ...rest], context) {
    const name = rest.find((arg) => STREAM_NAMES.includes(arg));
    const stream = name === undefined ? undefined : toKey(context.config.REDIS_PREFIX, name);
    const store = new SqlDeadLetterStore(context.sql());
    if (action === 'list') {
      const letters = await store.list({ stream, includeReplayed: rest.includes('--replayed'), limit: 100_000 });
      for (const letter of letters) context.print(JSON.stringify(letter));
      context.print(`${letters.length} dead letter(s)${stream ? ` of ${stream}` : ''}`);
    } else if (action === 'replay') {
      const target = rest.find((arg) => !STREAM_NAMES.includes(arg));
      if (!target) throw new UsageError('name a dead letter id, or --all');
      await replay(context, store, target, stream);
    } else {
      throw new UsageError('list or replay?');
    }
  },
};
