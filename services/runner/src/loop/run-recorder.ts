import type { RecordedEntry, RunState } from '@switchyard/contracts';
import type { TranscriptWriter } from './loop-ports';
import { foldEntry } from './run-state';

/** The content of an entry of type `T`. */
export type EntryContent<T extends RecordedEntry['type']> = Extract<RecordedEntry, { type: T }>['content'];

/**
 * The one way the loop records what a run did: each entry, its secrets
 * redacted, goes to the transcript and is folded into the run's state with
 * the same function that rebuilds a state from stored entries — so the state
 * a step leaves is the state any runner reads back after the next flush.
 */
export class RunRecorder {
  private flushed: Promise<void> = Promise.resolve();

  constructor(
    private readonly writer: TranscriptWriter,
    /** The run's state; updated in place by every `add`. */
    readonly state: RunState,
    /** Applied to every content before it is stored or folded (secret redaction). */
    private readonly redact: <C extends Record<string, unknown>>(content: C) => C = (content) => content,
  ) {}

  add<T extends RecordedEntry['type']>(type: T, content: EntryContent<T>): void {
    const clean = this.redact(content);
    const seq = this.writer.add(type, clean);
    foldEntry(this.state, { seq, type, content: clean } as RecordedEntry);
  }

  /**
   * Writes what was added since the last flush; resolves once every entry
   * added before the call is stored, also those of a flush still in flight
   * (the flushes are chained). After a failed write every later flush fails
   * too: what is stored stays a prefix of what the run recorded, never a
   * transcript with a hole that a resumed run would rebuild a wrong state from.
   */
  flush(): Promise<void> {
    this.flushed = this.flushed.then(() => this.writer.flush());
    return this.flushed;
  }
}
