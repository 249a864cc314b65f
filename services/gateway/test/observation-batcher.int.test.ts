import { randomUUID } from 'node:crypto';
import { sha256Hex, newId } from '@switchyard/core';
import { AgentMessageStore, type Observable } from '@switchyard/db';
import { createTestSql, type TestSql } from '@switchyard/testing';
import { ObservationBatcher } from '../src/commands/observation-batcher';

/**
 * Group commit of observations (decision 0047) on the real PostgreSQL: a
 * batch gets dense seqs in order and each row's previous senderSeq from the
 * row before it or the store; a batch meeting a stored messageId writes
 * nothing and is observed one by one; concurrent posts through the batcher,
 * with replays and duplicates among them, are each observed exactly once.
 */
describe('observation batches', () => {
  let t: TestSql;
  let store: AgentMessageStore;
  beforeAll(async () => {
    t = await createTestSql();
    store = new AgentMessageStore(t.sql);
  });
  afterAll(async () => {
    await t?.close();
  });

  const observable = (workspaceId: string, senderSeq: number, overrides: { messageId?: string; content?: string; sender?: string } = {}): Observable => {
    const content = overrides.content ?? `note ${senderSeq}`;
    const now = new Date();
    return {
      workspaceId,
      post: {
        schema: 'agent-message/v1',
        messageId: overrides.messageId ?? randomUUID(),
        senderSeq,
        thread: 't',
        topic: 'x',
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + 3_600_000).toISOString(),
        content,
        deliveryMode: 'shadow',
        canAuthorizeActions: false,
      },
      sender: { type: 'member', id: overrides.sender ?? 'm1' },
      contentSha256: sha256Hex(content),
      contentChars: content.length,
      receivedAt: now,
      retainUntil: new Date(now.getTime() + 60_000),
    };
  };

  it('a batch: dense seqs in input order, sequence metadata within the batch and against the store', async () => {
    const ws = newId();
    expect(await store.observe(observable(ws, 1))).toMatchObject({ disposition: 'observed', seq: 1 });
    const seqs = await store.observeMany(ws, [observable(ws, 2), observable(ws, 5), observable(ws, 1, { sender: 'm2' }), observable(ws, 4)]);
    expect(seqs).toEqual([2, 3, 4, 5]);
    const rows = await store.listAfter(ws, 0, 10);
    expect(rows.map((o) => `${o.seq}:${o.sender.id}:${o.senderSeq}:${o.sequence}:${o.previousSenderSeq}`)).toEqual([
      '1:m1:1:first:null',
      '2:m1:2:next:1',
      '3:m1:5:gap:2',
      '4:m2:1:first:null',
      '5:m1:4:regression:5',
    ]);
  });

  it('a batch that meets a stored messageId writes nothing and spends no seq', async () => {
    const ws = newId();
    const stored = observable(ws, 1);
    await store.observe(stored);
    expect(await store.observeMany(ws, [observable(ws, 2), stored])).toBeNull();
    expect(await store.lastSeq(ws)).toBe(1);
    expect(await store.listAfter(ws, 0, 10)).toHaveLength(1);
  });

  it('200 concurrent posts through the batcher, replays and duplicates among them: each envelope observed once, seqs dense', async () => {
    const ws = newId();
    const batcher = new ObservationBatcher(store);
    const repeated = observable(ws, 1000, { messageId: 'repeated-message' });
    const inputs = [
      ...Array.from({ length: 190 }, (_, i) => observable(ws, i + 1, { sender: `s${i % 7}` })),
      ...Array.from({ length: 5 }, () => repeated),
      ...Array.from({ length: 5 }, (_, i) => observable(ws, 2000 + i, { messageId: 'repeated-message', content: `other ${i}` })),
    ];
    const outcomes = await Promise.all(inputs.map((input) => batcher.observe(input)));
    const count = (disposition: string) => outcomes.filter((o) => o.disposition === disposition).length;
    expect([count('observed'), count('replayed'), count('duplicate_message')]).toEqual([191, 4, 5]);
    const rows = await store.listAfter(ws, 0, 500);
    expect(rows.map((o) => o.seq)).toEqual(rows.map((_, i) => i + 1));
    expect(rows.find((o) => o.messageId === 'repeated-message')?.deliveries).toBe(5);
  });
});
