import type { PLATFORM_TOOL_INPUT_SCHEMAS as INPUTS, PlatformToolName, Role } from '@switchyard/contracts';
import type { z } from 'zod';
import type { AgentMessageCommandDeps } from '../commands/agent-messages';
import type { DecideApprovalDeps } from '../commands/decide-approval';
import type { DelegationDeps } from '../commands/delegation';
import type { PostSessionMessageDeps } from '../commands/post-session-message';
import type { ReadTranscriptDeps } from '../commands/read-transcript';
import type { ScheduleBook } from '../commands/schedules';
import type { TaskLedger } from '../commands/task-ledger';
import type { TeammateDeps } from '../commands/teammates';
import type { TryAgent } from '../commands/try-agent';
import type { EvalRuns } from '../commands/eval-runs';
import type { SaveAgent } from '../commands/self-improvement';
import type { AgentStore, AgentUsageReader } from '../agent-ports';
import type { ApprovalsPort } from '../approval-ports';
import type { Principal } from '../auth-ports';
import type { FactReader, IngestWriter } from '../fact-ports';
import type { RunStore } from '../run-ports';
import type { RunLedger } from '../run-ledger';

// The platform tools' shapes, apart from their table: the team tools (team-tools.ts) use them and
// the table (platform-tools.ts) includes the team tools, so neither file imports the other's module.

/** What the platform tools need: the same ports and commands the REST routes use. */
export interface PlatformToolDeps extends AgentMessageCommandDeps, ReadTranscriptDeps, PostSessionMessageDeps, DecideApprovalDeps, TeammateDeps, Omit<DelegationDeps, 'ledger' | 'agents'> {
  approvals: ApprovalsPort;
  reader: Pick<FactReader, 'listAfter' | 'listBefore' | 'get' | 'findByIdempotencyKeys' | 'purgedThrough'>;
  ingest: IngestWriter;
  runs: Pick<RunStore, 'list' | 'get'>;
  agents: Pick<AgentStore, 'list' | 'get' | 'deletedAt'>;
  /** Agents' spend today and queued runs, shown with them. */
  agentUsage: AgentUsageReader;
  /** The causation depth cap (MAX_CAUSATION_DEPTH): a message cannot wake a turn past it. */
  maxCausationDepth: number;
  /** Starts, stops and retries runs (the REST routes' RunLedger). */
  ledger: Pick<RunLedger, 'start' | 'stop' | 'retry' | 'startDelegated'>;
  /** Runs a draft or saved agent once in shadow (the REST route's TryAgent). */
  tryAgent: Pick<TryAgent, 'try'>;
  /** Eval runs (the REST routes' EvalRuns): `run_eval`, `get_eval`. */
  evalRuns: Pick<EvalRuns, 'start' | 'read'>;
  /** `save_agent` (decision 0058). */
  saveAgent: Pick<SaveAgent, 'save' | 'detail'>;
  /** The task ledger's commands (the REST routes' TaskLedger). */
  taskLedger: TaskLedger;
  /** The schedules' commands (the REST routes' ScheduleBook). */
  scheduleBook: Pick<ScheduleBook, 'create' | 'list' | 'delete'>;
}

/** Who calls, and the id that ties the call to the facts it records. */
export interface PlatformToolContext {
  principal: Principal;
  correlationId: string;
  /** The call's arguments as sent, before parsing (save_agent matches them to the approval a person gave). @defaultValue {} */
  sent?: Record<string, unknown>;
}

/** MCP tool annotations: hints for clients (the runner's permission modes read them). */
export interface PlatformToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

/** One platform tool: its contract, the role it needs, and what it does. */
export interface PlatformTool<N extends PlatformToolName = PlatformToolName> {
  name: N;
  description: string;
  annotations: PlatformToolAnnotations;
  /** The least role that may call it. */
  role: Role;
  /** Only a person's token may call it: an agent token is refused and is not offered it. @defaultValue false */
  peopleOnly?: boolean;
  /** Only a crafting run's token (decision 0056) is offered the tool; others are refused it (the command checks). @defaultValue false */
  craftingOnly?: boolean;
  run(deps: PlatformToolDeps, ctx: PlatformToolContext, input: z.infer<(typeof INPUTS)[N]>): Promise<Record<string, unknown>>;
}
