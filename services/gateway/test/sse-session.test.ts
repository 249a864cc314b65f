import { EventEmitter } from 'node:events';
import type { Response } from 'express';
import type { Fact } from '@switchyard/contracts';
import { compileKindGlob } from '@switchyard/core';
import { createLogger } from '@switchyard/logging';
import type { FactReader } from '../src/fact-ports';
import { SseSession } from '../src/sse/sse-session';
import { waitFor } from '@switchyard/testing';

/** In-memory FactReader over a list of stored facts (the PostgreSQL adapter is tested end to end). */
class ListReader implements Pick<FactReader, 'listAfter'> {
  readonly calls: Array<[number, number | undefined]> = [];
  constructor(readonly stored: Fact[]) {}
  async listAfter(_ws: unknown, afterSeq: number, options: { limit: number; uptoSeq?: number }): Promise<Fact[]> {
    this.calls.push([afterSeq, options.uptoSeq]);
    return this.stored.filter((f) => f.seq > afterSeq && f.seq <= (options.uptoSeq ?? Infinity)).slice(0, options.limit);
  }
}

class FakeResponse extends EventEmitter {
  written = '';
  writableLength = 0;
  ended = false;
  write(chunk: string) {
    this.written += chunk;
    return true;
  }
  end() {
    this.ended = true;
  }
  seqs() {
    return [...this.written.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  }
}

const fact = (seq: number, kind = 'a.b'): Fact => ({
  id: `00000000-0000-7000-8000-${String(seq).padStart(12, '0')}`,
  seq,
  workspace: 'w',
  kind,
  subject: { type: 't', id: String(seq) },
  payload: {},
  ts: new Date(0).toISOString(),
});

function session(stored: Fact[], lastSeq: number, extra: Partial<ConstructorParameters<typeof SseSession>[0]> = {}) {
  const res = new FakeResponse();
  const reader = new ListReader(stored);
  const s = new SseSession({
    res: res as unknown as Response,
    workspace: { id: 'w', slug: 'w' },
    reader: reader as unknown as FactReader,
    lastSeq,
    heartbeatMs: 60_000,
    log: createLogger({ service: 'test', level: 'silent' }),
    ...extra,
  });
  return { s, res, reader };
}

/**
 * Waits until the session has sent `marker` (pushed last): its steps run in order, so everything
 * pushed before it has been handled by then.
 */
const sentThrough = (res: FakeResponse, marker: number) => waitFor(async () => res.seqs().includes(marker), { timeoutMs: 5000, intervalMs: 5, what: `seq ${marker} sent` });

describe('SseSession', () => {
  it('fills a gap in live facts from the store before sending the fact that revealed it', async () => {
    const stored = [1, 2, 3, 4, 5, 6].map((n) => fact(n));
    const { s, res } = session(stored, 0);
    s.push(stored[0]!);
    s.push(stored[4]!); // 2..4 never came live (trimmed, or published late by another event-log)
    s.push(stored[2]!); // arrives late: already sent from the store, skipped
    s.push(stored[5]!);
    await sentThrough(res, 6);
    s.close();
    expect(res.seqs()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('catches up from the store on start, then drops live duplicates', async () => {
    const stored = Array.from({ length: 1200 }, (_, i) => fact(i + 1));
    const { s, res, reader } = session(stored, 100);
    s.start();
    s.push(stored[1199]!);
    s.push(fact(1201));
    await sentThrough(res, 1201);
    s.close();
    expect(res.seqs()).toEqual(Array.from({ length: 1101 }, (_, i) => i + 101));
    expect(reader.calls.length).toBeGreaterThanOrEqual(3); // paged by 500
  });

  it('counts filtered-out facts for gaps but sends only matching kinds', async () => {
    const stored = [fact(1, 'deploy.started'), fact(2, 'tick.x'), fact(3, 'deploy.done'), fact(4, 'deploy.marker')];
    const { s, res } = session(stored, 0, { matcher: compileKindGlob('deploy.*') });
    s.push(stored[2]!);
    s.push(stored[3]!);
    await sentThrough(res, 4);
    s.close();
    expect(res.seqs()).toEqual([1, 3, 4]);
  });

  it('switches to the store when live facts pile up, without losing or repeating any', async () => {
    const stored = Array.from({ length: 50 }, (_, i) => fact(i + 1));
    const { s, res } = session(stored, 0, { maxQueued: 5 });
    for (const f of stored) s.push(f);
    await sentThrough(res, 50);
    // One more once it has caught up: nothing from before it may follow it.
    stored.push(fact(51));
    s.push(stored[50]!);
    await sentThrough(res, 51);
    s.close();
    expect(res.seqs()).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
  });

  it('disconnects a client that stops reading', async () => {
    const stored = [fact(1), fact(2)];
    const { s, res } = session(stored, 0, { maxBufferedBytes: 10 });
    res.writableLength = 100;
    s.push(stored[0]!);
    s.push(stored[1]!);
    await waitFor(async () => res.ended, { timeoutMs: 5000, intervalMs: 5, what: 'the session ended' });
    expect(res.seqs()).toEqual([1]);
  });
});
