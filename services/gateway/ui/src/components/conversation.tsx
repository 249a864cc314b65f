import { Link } from 'wouter';
import type { TranscriptEntry } from '../types';
import { Entry } from './transcript';

/** A compaction entry's range (decision 0052): the session's entries `fromSeq`–`throughSeq` it summarized. */
interface Compaction {
  seq: number;
  fromSeq: number;
  throughSeq: number;
}

type Item = { kind: 'entry'; entry: TranscriptEntry } | { kind: 'replaced'; by: Compaction; entries: TranscriptEntry[] };

/**
 * The compaction that replaced `seq` in what the model is sent: the earliest
 * one recorded after it whose range holds it (a later compaction's range may
 * hold it again, with the earlier summary).
 */
function replacedBy(compactions: Compaction[], seq: number): Compaction | undefined {
  return compactions.find((c) => c.seq > seq && c.fromSeq <= seq && seq <= c.throughSeq);
}

/** Consecutive entries replaced by the same compaction, grouped; the rest one by one. */
function itemsOf(entries: TranscriptEntry[]): Item[] {
  const compactions = entries
    .filter((entry) => entry.type === 'compaction')
    .map((entry) => {
      const c = entry.content as { fromSeq?: unknown; throughSeq?: unknown };
      return { seq: entry.seq, fromSeq: Number(c.fromSeq), throughSeq: Number(c.throughSeq) };
    });
  const items: Item[] = [];
  for (const entry of entries) {
    const by = replacedBy(compactions, entry.seq);
    const last = items.at(-1);
    if (!by) items.push({ kind: 'entry', entry });
    else if (last?.kind === 'replaced' && last.by === by) last.entries.push(entry);
    else items.push({ kind: 'replaced', by, entries: [entry] });
  }
  return items;
}

/** Where each turn starts (the seq of its first entry) and its number. */
interface Turns {
  firstSeqs: Set<number>;
  number: Map<string, number>;
}

function Entries({ entries, turns }: { entries: TranscriptEntry[]; turns: Turns }) {
  return entries.map((entry) => (
    <li key={entry.seq} className={`entry e-${entry.type}`} data-seq={entry.seq}>
      {turns.firstSeqs.has(entry.seq) && (
        <div className="turn-head" data-testid="turn-head">
          turn {turns.number.get(entry.runId)} · <Link href={`/runs/${entry.runId}`}>its run</Link>
        </div>
      )}
      <span className="seq muted">#{entry.seq}</span>
      <Entry entry={entry} />
    </li>
  ));
}

/**
 * A teammate's whole conversation (its session's transcript, every turn in
 * order): each turn headed with its run; a compaction marked with the range
 * it replaces, and the raw entries it replaced folded under it, still
 * readable (decision 0052: the transcript keeps them, the model is sent the
 * summary instead).
 */
export function Conversation({ entries }: { entries: TranscriptEntry[] }) {
  if (entries.length === 0) return <p className="muted">No turns yet: a message or a watched fact wakes it.</p>;
  const turns: Turns = { firstSeqs: new Set(), number: new Map() };
  entries.forEach((entry, i) => {
    if (entries[i - 1]?.runId !== entry.runId) turns.firstSeqs.add(entry.seq);
    if (!turns.number.has(entry.runId)) turns.number.set(entry.runId, turns.number.size + 1);
  });
  return (
    <ol className="transcript conversation" data-testid="conversation">
      {itemsOf(entries).map((item) =>
        item.kind === 'entry' ? (
          <Entries key={item.entry.seq} entries={[item.entry]} turns={turns} />
        ) : (
          <li key={`replaced-${item.entries[0]!.seq}`} className="replaced" data-testid="replaced">
            <details>
              <summary>
                {item.entries.length === 1 ? '1 entry' : `${item.entries.length} entries`} (#{item.entries[0]!.seq}–#{item.entries.at(-1)!.seq}) summarized by the
                compaction at #{item.by.seq}: show them as recorded
              </summary>
              <ol className="transcript">
                <Entries entries={item.entries} turns={turns} />
              </ol>
            </details>
          </li>
        ),
      )}
    </ol>
  );
}
