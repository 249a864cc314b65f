import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { NOTIFICATIONS_QUEUE, QUEUES, STREAMS } from '@switchyard/contracts';

/**
 * docs/streams.json says which service produces and consumes each Redis
 * stream and BullMQ queue (issue 33). This reads the same from the services'
 * code — who constructs a producer (RedisIngestWriter, RedisFactPublisher,
 * SessionMailbox, a queue) and who consumes (StreamConsumer with its group,
 * FactFeed, a Worker) — and fails when the two differ.
 */
const ROOT = path.resolve(__dirname, '../..');

interface Channel {
  producers: Record<string, string>;
  consumers: Record<string, string>;
  dashboard?: string[];
}
interface StreamsMap {
  streams: Record<string, Channel>;
  queues: Record<string, Channel>;
}

/** "role channel" facts, e.g. "produces facts", "consumes queue:activations", as `service: role channel`. */
type Found = Set<string>;

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(full);
    else if (entry.name.endsWith('.ts')) yield readFileSync(full, 'utf8');
  }
}

/** The argument text of each `new StreamConsumer({ … })`, up to its closing `})`. */
function consumerBlocks(text: string): string[] {
  return [...text.matchAll(/new StreamConsumer(?:<[^>]*>)?\(\{([\s\S]*?)\n\s*\}\)/g)].map((match) => match[1]!);
}

const STREAM_NAMES = Object.fromEntries(Object.entries(STREAMS).map(([key, name]) => [key, name])) as Record<string, string>;

/** What one service's code produces and consumes. */
export function channelsInCode(service: string, texts: readonly string[]): Found {
  const found: Found = new Set();
  const add = (role: 'produces' | 'consumes' | 'dashboard', channel: string) => found.add(`${service}: ${role} ${channel}`);
  for (const text of texts) {
    if (/new RedisIngestWriter\(/.test(text)) add('produces', STREAMS.ingest);
    if (/new RedisFactPublisher\(/.test(text)) add('produces', STREAMS.facts);
    if (/new FactFeed\(/.test(text)) add('consumes', STREAMS.facts);
    if (/new (SessionMailbox|RedisMailbox)\(/.test(text)) add('produces', 'mailbox:<session>');
    for (const block of consumerBlocks(text)) {
      const stream = /STREAMS\.(\w+)/.exec(block)?.[1];
      if (!stream || !STREAM_NAMES[stream]) throw new Error(`${service}: a StreamConsumer whose stream this test cannot read:\n${block}`);
      add('consumes', STREAM_NAMES[stream]!);
    }
    if (/createActivationQueue\(/.test(text)) add('produces', `queue:${QUEUES.activations}`);
    if (/new Worker<ActivationJob>\(\s*QUEUES\.activations/.test(text)) add('consumes', `queue:${QUEUES.activations}`);
    if (/createApprovalExpiryQueue\(/.test(text)) add('produces', `queue:${QUEUES.approvalExpiry}`);
    if (/createApprovalExpiryWorker\(/.test(text)) add('consumes', `queue:${QUEUES.approvalExpiry}`);
    if (/new Queue<\w+>\(\s*NOTIFICATIONS_QUEUE/.test(text)) add('produces', `queue:${NOTIFICATIONS_QUEUE}`);
    if (/new Worker<\w+>\(\s*NOTIFICATIONS_QUEUE/.test(text)) add('consumes', `queue:${NOTIFICATIONS_QUEUE}`);
    // The BullMQ dashboard's view of the other services' queues (decision 0043).
    for (const line of text.split('\n').filter((l) => /new Queue\(name/.test(l))) {
      if (line.includes('QUEUES.approvalExpiry')) add('dashboard', `queue:${QUEUES.approvalExpiry}`);
      if (line.includes('NOTIFICATIONS_QUEUE')) add('dashboard', `queue:${NOTIFICATIONS_QUEUE}`);
    }
  }
  return found;
}

/** The same facts, as the map states them. A mailbox's consumer is also a user of SessionMailbox (one class posts and reads). */
function channelsInMap(map: StreamsMap): Found {
  const found: Found = new Set();
  const read = (channel: string, entry: Channel) => {
    for (const service of Object.keys(entry.producers)) found.add(`${service}: produces ${channel}`);
    for (const service of Object.keys(entry.consumers)) found.add(`${service}: ${channel === 'mailbox:<session>' ? 'produces' : 'consumes'} ${channel}`);
    for (const service of entry.dashboard ?? []) found.add(`${service}: dashboard ${channel}`);
  };
  for (const [name, entry] of Object.entries(map.streams)) read(name, entry);
  for (const [name, entry] of Object.entries(map.queues)) read(`queue:${name}`, entry);
  return found;
}

describe('docs/streams.json', () => {
  const map = JSON.parse(readFileSync(path.join(ROOT, 'docs/streams.json'), 'utf8')) as StreamsMap;

  it('names every stream and queue of libs/contracts, and nothing else', () => {
    expect(Object.keys(map.streams).sort()).toEqual([...Object.values(STREAMS), 'mailbox:<session>'].sort());
    expect(Object.keys(map.queues).sort()).toEqual([...Object.values(QUEUES), NOTIFICATIONS_QUEUE].sort());
  });

  it('reads a consumer and its stream from the code', () => {
    const found = channelsInCode('x', ["const c = new StreamConsumer({\n  stream: key,\n  lastErrorsKey: lastErrorsKey(p, STREAMS.facts, GROUPS.matcher),\n});"]);
    expect([...found]).toEqual(['x: consumes facts']);
  });

  it('says what each service produces and consumes, as its code does', () => {
    const services = readdirSync(path.join(ROOT, 'services'), { withFileTypes: true }).filter((entry) => entry.isDirectory());
    const inCode = new Set(services.flatMap((entry) => [...channelsInCode(entry.name, [...sources(path.join(ROOT, 'services', entry.name, 'src'))])]));
    expect([...inCode].sort()).toEqual([...channelsInMap(map)].sort());
  });
});
