import { newId } from '@switchyard/core';
import { createTestRedis, type TestRedis } from '@switchyard/testing';
import { RedisAgentSlots } from '../src/adapters/redis-agent-slots';

/**
 * The agent slots on a real Redis: a hand-off moves the slot of the run that
 * ended to the run started after it (the slot is never free in between), takes
 * a free slot when the ended run's lease lapsed, and grants nothing when no
 * slot is free — while the old run's lease can no longer touch the slot.
 */
describe('RedisAgentSlots hand-off', () => {
  let t: TestRedis;
  let slots: RedisAgentSlots;
  beforeAll(async () => {
    t = await createTestRedis();
    slots = new RedisAgentSlots(t.redis, t.prefix);
  });
  afterAll(async () => {
    await t?.cleanup();
  });
  const LEASE = 60_000;

  it('moves the slot from the ended run to the next; the old lease no longer releases it', async () => {
    const agent = newId();
    const claim = await slots.claim(agent, 2, ['a'], LEASE);
    const other = await slots.claim(agent, 2, ['a', 'x'], LEASE);
    expect(other.granted?.runId).toBe('x');
    const handed = await slots.handOver(agent, 2, 'a', 'b', LEASE);
    expect(handed.granted?.runId).toBe('b');
    expect(handed.held).toEqual(new Set(['x', 'b']));
    // The same slot: no third one was taken (concurrency 2 is full).
    expect((await slots.claim(agent, 2, ['c'], LEASE)).granted).toBeNull();
    await claim.granted!.lease.release();
    expect(await slots.holders(agent)).toEqual(new Set(['x', 'b']));
    expect(await claim.granted!.lease.renew()).toBe(false);
    expect(await handed.granted!.lease.renew()).toBe(true);
    await handed.granted!.lease.release();
    expect(await slots.holders(agent)).toEqual(new Set(['x']));
  });

  it('takes a free slot when the ended run holds none any more, and grants nothing when none is free', async () => {
    const agent = newId();
    const claim = await slots.claim(agent, 1, ['a'], LEASE);
    // Its lease lapsed and another run took the agent's only slot.
    await claim.granted!.lease.release();
    await slots.claim(agent, 1, ['x'], LEASE);
    const refused = await slots.handOver(agent, 1, 'a', 'b', LEASE);
    expect(refused.granted).toBeNull();
    expect(refused.held).toEqual(new Set(['x']));
    // With a second slot, the hand-off takes it.
    const taken = await slots.handOver(agent, 2, 'a', 'b', LEASE);
    expect(taken.granted?.runId).toBe('b');
    expect(taken.held).toEqual(new Set(['x', 'b']));
  });

  it('pass moves only its own slot, even when another slot names the same run', async () => {
    const agent = newId();
    const claimed = (await slots.claim(agent, 2, ['x'], LEASE)).granted!;
    const ended = (await slots.claim(agent, 2, ['x', 'a'], LEASE)).granted!;
    // A hand-off started x too: the other slot names it now as well.
    await slots.handOver(agent, 2, 'a', 'x', LEASE);
    expect(await slots.holders(agent)).toEqual(new Set(['x']));
    const passed = await claimed.lease.pass('y');
    expect(await slots.holders(agent)).toEqual(new Set(['x', 'y']));
    expect(await passed!.renew()).toBe(true);
    // The old lease names x no more in its slot: it can neither pass nor release it.
    expect(await claimed.lease.pass('z')).toBeNull();
    await claimed.lease.release();
    expect(await slots.holders(agent)).toEqual(new Set(['x', 'y']));
    await passed!.release();
    expect(await slots.holders(agent)).toEqual(new Set(['x']));
    expect(ended.runId).toBe('a');
  });

  it('gives the moved slot a fresh lease', async () => {
    const agent = newId();
    await slots.claim(agent, 1, ['a'], 200);
    await slots.handOver(agent, 1, 'a', 'b', LEASE);
    const ttl = await t.redis.pttl(`${t.prefix}:agent-slot:${agent}:0`);
    expect(ttl).toBeGreaterThan(1_000);
  });
});
