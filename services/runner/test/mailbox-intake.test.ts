import { randomUUID } from 'node:crypto';
import type { MailboxEnvelope } from '@switchyard/contracts';
import { FakeMailbox, FakeTranscriptStore } from '@switchyard/testing';
import type { Mailbox, TranscriptStore } from '../src/loop/loop-ports';
import { MailboxIntake } from '../src/loop/mailbox-intake';
import { RunRecorder } from '../src/loop/run-recorder';
import { emptyRunState, rebuildRunState } from '../src/loop/run-state';

/**
 * How a run takes in its session's mailbox, on the shared fakes (typed as the
 * runner's own ports, so the compiler keeps them the same shape): a message
 * leaves the mailbox only after its transcript flush, one found again after a
 * crash is not recorded twice, and the run's close either takes late
 * messages or refuses every later post.
 */
describe('MailboxIntake', () => {
  const workspaceId = randomUUID();
  const userId = randomUUID();
  let mailbox: FakeMailbox;
  let transcripts: FakeTranscriptStore;
  let sessionId: string;
  let runId: string;

  beforeEach(() => {
    mailbox = new FakeMailbox();
    transcripts = new FakeTranscriptStore();
    sessionId = randomUUID();
    runId = randomUUID();
  });

  const envelope = (content: string): MailboxEnvelope => ({ schemaVersion: 1, id: randomUUID(), sessionId, from: { type: 'user', userId }, content, sentAt: new Date().toISOString() });
  const port: () => Mailbox = () => mailbox;
  const store: () => TranscriptStore = () => transcripts;
  const start = async () => {
    const run = { runId, workspaceId, sessionId, lastSeq: transcripts.lastSeq(sessionId) };
    const state = run.lastSeq > 0 ? rebuildRunState(runId, await store().entries(run)) : emptyRunState(runId);
    const recorder = new RunRecorder(store().open(run), state);
    return { recorder, intake: new MailboxIntake(recorder, port(), sessionId) };
  };
  const recorded = async () => (await transcripts.entries({ runId, workspaceId })).map((entry) => [entry.type, (entry.content as { envelopeId?: string; code?: string }).envelopeId ?? (entry.content as { code?: string }).code]);

  it('records drained messages, and deletes them from the mailbox only once the transcript holds them', async () => {
    const [a, b] = [envelope('a'), envelope('b')];
    await mailbox.post(a);
    await mailbox.post(b);
    const { recorder, intake } = await start();
    intake.absorb(await intake.read());
    expect(intake.settled).toBe(false);
    expect(mailbox.size(sessionId)).toBe(2);
    await recorder.flush();
    await intake.settle();
    expect(intake.settled).toBe(true);
    expect(mailbox.size(sessionId)).toBe(0);
    expect(await recorded()).toEqual([['user', a.id], ['user', b.id]]);
  });

  it('the read after a flush deletes what the flush recorded, in the same call; a read before it deletes nothing', async () => {
    const [a, b] = [envelope('a'), envelope('b')];
    await mailbox.post(a);
    const { recorder, intake } = await start();
    intake.absorb(await intake.read());
    await mailbox.post(b);
    intake.absorb(await intake.read());
    expect(mailbox.size(sessionId)).toBe(2);
    await recorder.flush();
    intake.recorded();
    expect(intake.settled).toBe(true);
    expect((await intake.read()).envelopes).toEqual([]);
    expect(mailbox.size(sessionId)).toBe(0);
    expect(await recorded()).toEqual([['user', a.id], ['user', b.id]]);
  });

  it('a message found again after a crash between the flush and the delete is not recorded twice', async () => {
    const message = envelope('once');
    await mailbox.post(message);
    const first = await start();
    first.intake.absorb(await first.intake.read());
    await first.recorder.flush();
    // The runner dies here: the entry is in the transcript, still in the mailbox.
    const resumed = await start();
    resumed.intake.absorb(await resumed.intake.read());
    await resumed.recorder.flush();
    await resumed.intake.settle();
    expect(await recorded()).toEqual([['user', message.id]]);
    expect(mailbox.size(sessionId)).toBe(0);
  });

  it('the last drain takes messages that came late and keeps the mailbox open; with none it closes it', async () => {
    const { recorder, intake } = await start();
    intake.absorb(await intake.read());
    const late = envelope('late');
    await mailbox.post(late);
    expect(await intake.closeIfDrained()).toBe(false);
    expect(await mailbox.post(envelope('later still'))).toBe('delivered');
    await recorder.flush();
    await intake.settle();
    expect(await intake.closeIfDrained()).toBe(false);
    expect(await intake.closeIfDrained()).toBe(true);
    expect(await mailbox.post(envelope('too late'))).toBe('closed');
    await recorder.flush();
    expect((await recorded()).map(([type]) => type)).toEqual(['user', 'user']);
  });

  it('a run that ends otherwise closes its mailbox and records what it never read as one notice', async () => {
    const { recorder, intake } = await start();
    await mailbox.post(envelope('unread 1'));
    await mailbox.postRaw(sessionId, 'not json');
    await intake.closeNow();
    await intake.closeNow();
    await recorder.flush();
    await intake.settle();
    expect(await recorded()).toEqual([['notice', 'mailbox_unread'], ['notice', 'mailbox_entry_invalid']]);
    expect(mailbox.isClosed(sessionId)).toBe(true);
    expect(mailbox.size(sessionId)).toBe(0);
  });
});
