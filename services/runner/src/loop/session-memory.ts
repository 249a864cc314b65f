import { RecordedEntrySchema, TeammateMemorySchema, type RunState, type RunStateMessage, type TeammateMemory } from '@switchyard/contracts';
import { asData } from './render';
import { emptyRunState, foldEntry } from './run-state';

/** A transcript entry of a session as the history read returns it: whose run wrote it. */
export interface SessionEntry {
  seq: number;
  runId: string;
  type: string;
  content: unknown;
}

/** What a teammate's turn reads of its session's earlier turns (decision 0052). */
export interface SessionHistoryRead {
  /** The teammate's `memory` as stored; null: the defaults. */
  memory: unknown;
  /**
   * In `seq` order: the latest system prompt another turn recorded and the
   * message after it (the head); the latest compaction (any turn's, this
   * one's too); and the other turns' conversation entries after it.
   */
  entries: SessionEntry[];
}

/** Reads a teammate's session history; scoped to the run's workspace. */
export interface SessionHistoryStore {
  history(run: { runId: string; workspaceId: string; sessionId: string; teammateId: string }): Promise<SessionHistoryRead>;
}

/** One earlier turn in the history: the entries it holds (after the latest compaction) and their estimated tokens. */
export interface HistoryTurn {
  runId: string;
  fromSeq: number;
  throughSeq: number;
  tokens: number;
}

/**
 * A teammate's conversation before this turn, laid out for the longest
 * shared prefix from one turn to the next: the head (system prompt and
 * standing task, never compacted), the summary of compacted turns, then the
 * later turns as they were sent. A turn only appends; a compaction rewrites
 * the part after the head once.
 */
export interface SessionHistory {
  memory: TeammateMemory;
  head: RunStateMessage[];
  /** The latest compaction: its summary and range, or null. */
  summary: { text: string; fromSeq: number; throughSeq: number } | null;
  turns: HistoryTurn[];
  /** The summary message and the turns' messages, in order. */
  body: RunStateMessage[];
  /** Estimated tokens of head and body. */
  tokens: number;
  /** The entries it was built from (a compaction rebuilds it with its own entry added). */
  entries: SessionEntry[];
}

/** Four characters a token: the estimate the platform uses where no tokenizer runs (decision 0047 too). */
export function estimateTokens(messages: readonly RunStateMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    chars += (message.content ?? '').length;
    if (message.role === 'assistant') for (const call of message.toolCalls) chars += call.name.length + call.arguments.length;
  }
  return Math.ceil(chars / 4);
}

/** How the summary of earlier turns is shown to the model: delimited data (the model wrote it from messages that were data). */
export function summaryMessage(text: string): RunStateMessage {
  return { role: 'user', content: `[summary of the earlier conversation]\n${asData('conversation summary', text)}` };
}

/** Pure: the history from what the session read returned. */
export function buildHistory(read: SessionHistoryRead): SessionHistory {
  // A stored value that no longer parses (bounds tightened since) falls back to the defaults.
  const stored = TeammateMemorySchema.safeParse(read.memory ?? {});
  const memory = stored.success ? stored.data : TeammateMemorySchema.parse({});
  const head: RunStateMessage[] = [];
  const entries = read.entries.map((entry) => ({ runId: entry.runId, parsed: RecordedEntrySchema.parse({ seq: entry.seq, type: entry.type, content: entry.content }) }));
  const latest = entries.findLast(({ parsed }) => parsed.type === 'compaction')?.parsed;
  const summary = latest?.type === 'compaction' ? { text: latest.content.summary, fromSeq: latest.content.fromSeq, throughSeq: latest.content.throughSeq } : null;
  const systemAt = read.entries.find((entry) => entry.type === 'system')?.seq;
  const turns = new Map<string, HistoryTurn>();
  const state = emptyRunState('00000000-0000-0000-0000-000000000000');
  for (const { runId, parsed } of entries) {
    const entry = { seq: parsed.seq, runId };
    if (parsed.type === 'compaction' || parsed.type === 'notice') continue;
    if (parsed.type === 'system' || (systemAt !== undefined && entry.seq === systemAt + 1 && parsed.type === 'user')) {
      head.push(parsed.type === 'system' ? { role: 'system', content: parsed.content.text } : { role: 'user', content: parsed.content.text });
      continue;
    }
    if (summary && entry.seq <= summary.throughSeq) continue;
    const before = state.conversation.length;
    foldEntry(state, parsed);
    const tokens = estimateTokens(state.conversation.slice(before));
    const turn = turns.get(entry.runId);
    if (turn) {
      turn.throughSeq = entry.seq;
      turn.tokens += tokens;
    } else {
      turns.set(entry.runId, { runId: entry.runId, fromSeq: entry.seq, throughSeq: entry.seq, tokens });
    }
  }
  const body = [...(summary ? [summaryMessage(summary.text)] : []), ...answeredOnly(state.conversation)];
  return { memory, head, summary, turns: [...turns.values()], body, tokens: estimateTokens(head) + estimateTokens(body), entries: read.entries };
}

/**
 * A turn that ended between an answer and its calls' results (failed,
 * stopped) left calls without a result: a provider refuses those, so the
 * history keeps the answer's text and drops its unanswered calls.
 */
function answeredOnly(messages: RunStateMessage[]): RunStateMessage[] {
  const answered = new Set(messages.flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : [])));
  const kept: RunStateMessage[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant' || message.toolCalls.every((call) => answered.has(call.id))) {
      kept.push(message);
      continue;
    }
    const toolCalls = message.toolCalls.filter((call) => answered.has(call.id));
    if (message.content || toolCalls.length > 0) kept.push({ ...message, toolCalls });
  }
  return kept;
}

/**
 * What the model is sent: the run's own conversation, after its teammate's
 * history when it has one. A turn that recorded its own head (the first, or
 * one whose prompt changed) puts it first in place of the history's.
 */
export function contextMessages(session: { history?: SessionHistory; recorder: { state: RunState } }): RunStateMessage[] {
  const own = session.recorder.state.conversation;
  const { history } = session;
  if (!history) return own;
  const ownHead = own[0]?.role === 'system' ? (own[1]?.role === 'user' ? 2 : 1) : 0;
  return [...(ownHead > 0 ? own.slice(0, ownHead) : history.head), ...history.body, ...own.slice(ownHead)];
}

/** Whether a turn with this history records its own head: none recorded yet, or the agent's prompt or task changed since. */
export function needsHead(history: SessionHistory | undefined, system: string, first: string): boolean {
  if (!history || history.head.length === 0) return true;
  return history.head[0]?.content !== system || history.head[1]?.content !== first;
}
