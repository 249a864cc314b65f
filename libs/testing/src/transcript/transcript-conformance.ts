import { randomUUID } from 'node:crypto';
import type { ConformingStoredEntry, ConformingTranscriptStore, TranscriptRunRef } from './transcript-types';

/** What the conformance suite needs of an adapter under test. */
export interface TranscriptHarness {
  /** The runner's port under test. */
  store: ConformingTranscriptStore;
  /** The session's highest stored seq, 0 for none (what a claim hands its run as `transcriptSeq`). */
  lastSeq(sessionId: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * Why this exists: the loop's tests only mean something if the fake
 * transcript keeps the real one's rules. This is the one suite both pass (the
 * fake in libs/testing, the SQL adapter in services/runner): entries are
 * buffered until a flush and read back in seq order; a session's seq runs on
 * without a gap or a repeat across its runs and across the writers of one
 * resumed run; a flush with nothing new writes nothing; entries are
 * append-only (a writer that would reuse a seq is refused whole); a run reads
 * only its own entries, in its own workspace.
 */
export function describeTranscriptConformance(name: string, setup: () => Promise<TranscriptHarness>): void {
  describe(`transcript conformance: ${name}`, () => {
    let h: TranscriptHarness;
    let workspaceId: string;
    let sessionId: string;
    beforeAll(async () => {
      h = await setup();
      workspaceId = randomUUID();
    });
    afterAll(async () => {
      await h?.close();
    });
    beforeEach(() => {
      sessionId = randomUUID();
    });

    const runOf = (lastSeq: number, runId = randomUUID(), session = sessionId): TranscriptRunRef => ({ runId, workspaceId, sessionId: session, lastSeq });
    const seqs = (entries: ConformingStoredEntry[]) => entries.map((entry) => entry.seq);

    it('entries are buffered until a flush, then read back in seq order with their type and content', async () => {
      const run = runOf(0);
      const writer = h.store.open(run);
      const content = { text: 'héllo ✓', nested: { list: [1, 'two', null, true], empty: {} } };
      expect([writer.add('system', { text: 'be brief' }), writer.add('user', content), writer.add('notice', { code: 'x', message: 'y' })]).toEqual([1, 2, 3]);
      expect(await h.store.entries(run)).toEqual([]);
      await writer.flush();
      expect(await h.store.entries(run)).toEqual([
        { seq: 1, type: 'system', content: { text: 'be brief' } },
        { seq: 2, type: 'user', content },
        { seq: 3, type: 'notice', content: { code: 'x', message: 'y' } },
      ]);
    });

    it('a flush with nothing new writes nothing; flushes append in the order entries were added', async () => {
      const run = runOf(0);
      const writer = h.store.open(run);
      await writer.flush();
      writer.add('system', { text: 'a' });
      await writer.flush();
      await writer.flush();
      writer.add('user', { text: 'b' });
      writer.add('assistant', { text: 'c' });
      await writer.flush();
      await writer.flush();
      const entries = await h.store.entries(run);
      expect(entries.map((entry) => [entry.seq, entry.type])).toEqual([[1, 'system'], [2, 'user'], [3, 'assistant']]);
      expect(await h.lastSeq(sessionId)).toBe(3);
    });

    it("a session's seq runs on across its runs; each run reads back only its own entries", async () => {
      expect(await h.lastSeq(sessionId)).toBe(0);
      const first = runOf(0);
      const a = h.store.open(first);
      a.add('system', { text: 'first run' });
      a.add('assistant', { text: 'done' });
      await a.flush();
      const second = runOf(await h.lastSeq(sessionId));
      const b = h.store.open(second);
      expect(b.add('user', { text: 'second run' })).toBe(3);
      expect(b.add('assistant', { text: 'done again' })).toBe(4);
      await b.flush();
      expect(seqs(await h.store.entries(first))).toEqual([1, 2]);
      expect(seqs(await h.store.entries(second))).toEqual([3, 4]);
      expect(await h.lastSeq(sessionId)).toBe(4);
    });

    it('a resumed run continues after its last entry with a new writer, without a gap or a repeat', async () => {
      const runId = randomUUID();
      const before = h.store.open(runOf(0, runId));
      before.add('system', { text: 'start' });
      before.add('assistant', { text: 'step one' });
      await before.flush();
      const after = h.store.open(runOf(await h.lastSeq(sessionId), runId));
      after.add('tool', { toolCallId: 'c1', ok: true });
      await after.flush();
      const entries = await h.store.entries(runOf(0, runId));
      expect(entries.map((entry) => [entry.seq, entry.type])).toEqual([[1, 'system'], [2, 'assistant'], [3, 'tool']]);
    });

    it('entries are append-only: a flush that would reuse a stored seq is refused whole, and what is stored stays', async () => {
      const run = runOf(0);
      const writer = h.store.open(run);
      writer.add('system', { text: 'kept' });
      writer.add('assistant', { text: 'kept too' });
      await writer.flush();
      const stale = h.store.open(runOf(1));
      stale.add('assistant', { text: 'would overwrite seq 2' });
      stale.add('assistant', { text: 'would be seq 3' });
      await expect(stale.flush()).rejects.toThrow();
      expect((await h.store.entries(run)).map((entry) => entry.content)).toEqual([{ text: 'kept' }, { text: 'kept too' }]);
      expect(await h.lastSeq(sessionId)).toBe(2);
    });

    it("a run's entries are read in its own workspace only", async () => {
      const run = runOf(0);
      const writer = h.store.open(run);
      writer.add('system', { text: 'private' });
      await writer.flush();
      expect(await h.store.entries({ runId: run.runId, workspaceId: randomUUID() })).toEqual([]);
      expect(seqs(await h.store.entries(run))).toEqual([1]);
    });

    it('sessions number their entries apart, even when their flushes go out together', async () => {
      const runs = Array.from({ length: 4 }, () => runOf(0, randomUUID(), randomUUID()));
      const writers = runs.map((run) => h.store.open(run));
      for (const [i, writer] of writers.entries()) for (let n = 0; n <= i; n++) writer.add('assistant', { text: `${i}.${n}` });
      await Promise.all(writers.map((writer) => writer.flush()));
      const read = await Promise.all(runs.map((run) => h.store.entries(run)));
      expect(read.map(seqs)).toEqual([[1], [1, 2], [1, 2, 3], [1, 2, 3, 4]]);
    });
  });
}
