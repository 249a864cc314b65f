import { RecordedEntrySchema, RUN_STATE_SCHEMA_VERSION, type RecordedEntry, type RunState } from '@switchyard/contracts';
import type { StoredEntry } from './loop-ports';
import { PLAN_NOTICES } from './plan-tool';
import { asData } from './render';

/** The notice a run records as an execution of it parks: the running time it adds (decision 0050); the state adds them up. */
export const EXECUTION_RAN = 'execution_ran';

/** The notice stored before a call that is not safe to repeat runs; a run lost before its result ends runner_lost (run_in_write_call.sql). */
export const WRITE_CALL_STARTED = 'write_call_started';

/** The notice that marks where a digest run starts reading (the plane's newest seq then; awareness-digest.ts writes it, the fold reads it). */
export const AWARENESS_STARTED = 'awareness_started';

/** The state of a run that has recorded nothing yet: its set-up writes the first messages. */
export function emptyRunState(runId: string): RunState {
  return {
    schemaVersion: RUN_STATE_SCHEMA_VERSION,
    runId,
    lastSeq: 0,
    conversation: [],
    tally: { turns: 0, toolCalls: { ok: 0, refused: 0, failed: 0 }, tokensIn: 0, tokensOut: 0, costUsd: 0, unpriced: false, summary: '' },
    envelopeIds: [],
    next: { type: 'model' },
  };
}

/**
 * A run's state from its transcript entries (in `seq` order): what the loop
 * had after the step that wrote the last of them. Pure — entries in, state
 * out — so any runner continues a run from what PostgreSQL holds.
 *
 * @throws ZodError when an entry the state depends on does not parse.
 */
export function rebuildRunState(runId: string, entries: readonly StoredEntry[]): RunState {
  const state = emptyRunState(runId);
  for (const entry of entries) foldEntry(state, RecordedEntrySchema.parse({ seq: entry.seq, type: entry.type, content: entry.content }));
  return state;
}

/**
 * Adds one entry to the state, as the loop does for each entry it records
 * (RunRecorder), so that the state after a step and the state rebuilt from
 * the stored entries are the same by construction. Notices change nothing
 * but `lastSeq`, except a plan's decision: approved, the run goes on in its
 * `afterPlan` mode; denied, it finishes with the plan as its summary.
 */
export function foldEntry(state: RunState, entry: RecordedEntry): void {
  state.lastSeq = entry.seq;
  switch (entry.type) {
    case 'system':
      state.conversation.push({ role: 'system', content: entry.content.text });
      return;
    case 'user':
      state.conversation.push({ role: 'user', content: entry.content.text });
      if (entry.content.envelopeId) state.envelopeIds.push(entry.content.envelopeId);
      if (entry.content.awareness) foldDigest(state, entry.content.awareness);
      // Messages that came after a final answer: the model is asked again.
      if (state.next.type === 'finish') state.next = { type: 'model' };
      return;
    case 'assistant':
      return foldAnswer(state, entry.content);
    case 'compaction':
      return foldCompaction(state, entry.content);
    case 'tool':
      return foldToolResult(state, entry.content);
    case 'notice':
      if (entry.content.code === EXECUTION_RAN && typeof entry.content.ranMs === 'number') state.tally.ranMs = (state.tally.ranMs ?? 0) + entry.content.ranMs;
      if (entry.content.code === PLAN_NOTICES.approved && entry.content.mode) state.permissionMode = entry.content.mode;
      if (entry.content.code === AWARENESS_STARTED && entry.content.through !== undefined && !state.tally.awareness) {
        state.tally.awareness = { through: entry.content.through, digests: 0, notes: 0, contextTokens: 0, addedTokens: 0 };
      }
      if (entry.content.code === PLAN_NOTICES.denied) {
        state.tally.summary = entry.content.message;
        state.next = { type: 'finish' };
      }
      return;
  }
}

function foldAnswer(state: RunState, answer: Extract<RecordedEntry, { type: 'assistant' }>['content']): void {
  const toolCalls = answer.toolCalls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args }));
  state.conversation.push({ role: 'assistant', content: answer.text, toolCalls });
  const { tally } = state;
  tally.turns += 1;
  tally.tokensIn += answer.usage.inputTokens;
  tally.tokensOut += answer.usage.outputTokens;
  tally.costUsd += answer.costUsd;
  if (answer.unpriced) tally.unpriced = true;
  if (answer.usage.cachedInputTokens) tally.tokensCached = (tally.tokensCached ?? 0) + answer.usage.cachedInputTokens;
  // Every call sent the digests in the conversation again: their tokens were added to this one's input.
  if (tally.awareness) tally.awareness.addedTokens += tally.awareness.contextTokens;
  if (answer.text) tally.summary = answer.text;
  const final = answer.final ?? toolCalls.length === 0;
  state.next = toolCalls.length > 0 ? { type: 'tools', calls: toolCalls, final } : final ? { type: 'finish' } : { type: 'model' };
}

/** A compaction of the teammate's conversation (decision 0052): a step of its own, its tokens and cost the turn's. */
function foldCompaction(state: RunState, compaction: Extract<RecordedEntry, { type: 'compaction' }>['content']): void {
  const { tally } = state;
  const { inputTokens, outputTokens, cachedInputTokens } = compaction.usage;
  tally.tokensIn += inputTokens;
  tally.tokensOut += outputTokens;
  tally.costUsd += compaction.costUsd;
  if (compaction.unpriced) tally.unpriced = true;
  if (cachedInputTokens) tally.tokensCached = (tally.tokensCached ?? 0) + cachedInputTokens;
  const done = (tally.compactions ??= { count: 0, tokensIn: 0, tokensOut: 0 });
  done.count += 1;
  done.tokensIn += inputTokens;
  done.tokensOut += outputTokens;
}

/** A peer-note digest (decision 0047): the cursor moves, and its tokens ride along with every later call. */
function foldDigest(state: RunState, digest: { through: number; notes: number; tokens: number }): void {
  const awareness = (state.tally.awareness ??= { through: 0, digests: 0, notes: 0, contextTokens: 0, addedTokens: 0 });
  awareness.through = digest.through;
  awareness.digests += 1;
  awareness.notes += digest.notes;
  awareness.contextTokens += digest.tokens;
}

function foldToolResult(state: RunState, result: Extract<RecordedEntry, { type: 'tool' }>['content']): void {
  state.conversation.push({ role: 'tool', toolCallId: result.toolCallId, content: toolMessage(result) });
  state.tally.toolCalls[result.ok ? 'ok' : result.refused ? 'refused' : 'failed'] += 1;
  if (state.next.type !== 'tools') return;
  const { final } = state.next;
  const calls = state.next.calls.filter((call) => call.id !== result.toolCallId);
  state.next = calls.length > 0 ? { type: 'tools', calls, final } : final ? { type: 'finish' } : { type: 'model' };
}

/** A tool result as the model sees it: the result, or the error with its code, as delimited data. */
function toolMessage(result: Extract<RecordedEntry, { type: 'tool' }>['content']): string {
  const label = `tool ${result.name}`;
  if (result.ok) return asData(label, result.result ?? '');
  const error = result.error ?? { code: 'tool_failed', message: '' };
  return `[tool error ${error.code}] ${asData(label, error.message)}`;
}
