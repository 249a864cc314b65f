import { RUN_FAILURE_CODES } from '@switchyard/contracts';
import type { AgentSpec, Fact, RunState } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import type { AgentTokens } from '../agent-token-port';
import type { Model } from '../model/model';
import type { PriceTable } from '../model/prices';
import type { PlatformToolServer, ToolHost, ToolServerNotice } from '../tools';
import type { ApprovalRecords, WaitRecords, LoopMetrics, Mailbox, PeerNoteReader, RunContextStore, SecretReader, SpendLedger, TeammateWakes, TranscriptStore } from './loop-ports';
import type { SessionHistoryStore } from './session-memory';
import type { StepOutcome } from './step-outcome';

/** What the loop needs to reach a run's secrets. */
export type ResolveSecret = (name: string) => Promise<string>;

/** Constructor arguments of AgentLoop. */
export interface AgentLoopOptions {
  contexts: RunContextStore;
  transcripts: TranscriptStore;
  mailbox: Mailbox;
  spend: SpendLedger;
  secrets: SecretReader;
  prices: PriceTable;
  /**
   * The run's model (createModel with the runner's environment bound).
   * `answered`: model calls the run made before this runner took it over (a
   * stateful model, the scripted one, goes on after them).
   */
  model(spec: AgentSpec, input: { fact: Fact | null; input: string | null; resolveSecret: ResolveSecret; answered: number; seed: string }): Promise<Model>;
  /** The run's tools (connectTools with the runner's options bound). */
  tools(input: {
    servers: AgentSpec['tools']['mcpServers'];
    workspaceId: string;
    platform?: PlatformToolServer;
    resolveSecret: ResolveSecret;
    signal: AbortSignal;
  }): Promise<{ host: ToolHost; notices: ToolServerNotice[] }>;
  /** The platform's own tools (the gateway's `/mcp`, with a token per run); absent: none. */
  platform?: { url: string; tokens: AgentTokens; tokenTtlMs: number };
  /** Queues a teammate's next turn for what a turn left unread (decision 0035). Absent: nothing queues it but the next post. @defaultValue none */
  teammates?: TeammateWakes;
  /** A teammate's earlier turns (decision 0052); absent: every turn starts a fresh conversation. @defaultValue none */
  memory?: SessionHistoryStore;
  /** The run's approvals (decision 0026); absent: calls that ask fail with approval_unavailable. @defaultValue none */
  approvals?: ApprovalRecords;
  /** The run's waits for facts (decision 0055); absent: `wait_for_event` calls fail with wait_unavailable. @defaultValue none */
  waits?: WaitRecords;
  /** The operator's guarded tool globs (RUNNER_GUARDED_TOOLS). @defaultValue [] */
  guardedTools?: readonly string[];
  /** Peer notes for agents with `awareness: digest` (decision 0047); absent: no digest is ever taken. @defaultValue none */
  peerNotes?: PeerNoteReader;
  /** The wall-clock limit of a run whose spec sets no `budget.maxDurationMs` (RUNNER_MAX_RUN_DURATION_MS, decision 0050). @defaultValue none */
  maxDurationMs?: number;
  /** Model and tool call counters. @defaultValue none */
  metrics?: LoopMetrics;
  /** Told of each step as it ends, with the run's state after it (tests, tracing); must not throw. @defaultValue none */
  onStep?(outcome: StepOutcome, state: Readonly<RunState>): void;
  log: Logger;
}

/** Stable codes a run of the loop fails with (besides the model's and `runner_lost`). */
export const LOOP_ERRORS = {
  maxTurns: RUN_FAILURE_CODES.maxTurnsReached,
  budget: RUN_FAILURE_CODES.budgetExceeded,
  duration: RUN_FAILURE_CODES.durationExceeded,
  contextMissing: RUN_FAILURE_CODES.runContextMissing,
  aborted: RUN_FAILURE_CODES.aborted,
  /**
   * A call's approval could not be recorded or read (the database failed, or
   * the runner has no approvals): the call fails, it never runs (a tool
   * result's code, not a run's).
   */
  approvalUnavailable: 'approval_unavailable',
} as const;
