import { TOOL_ERROR_CODES, TOOL_REFUSAL_CODES } from '@switchyard/contracts';
import type { ToolCallResult as ToolCallVerdict } from '@switchyard/contracts';
import type { ModelToolCall } from '../model/model';
import type { ToolDefinition, ToolHost } from '../tools';
import { decisionOf, judgeCall, type JudgedCall, type JudgeInput } from './call-judgement';
import type { ApprovalRecords, LoopMetrics, RecordedApproval } from './loop-ports';
import { isPlanTool, PLAN_NOTICES } from './plan-tool';
import { LOOP_ERRORS } from './loop-options';
import type { RunRecorder } from './run-recorder';
import { WRITE_CALL_STARTED } from './run-state';
import { repeatableTool } from './tool-classes';

/** Everything one step's tool calls need. */
export interface ToolCallsInput extends JudgeInput {
  calls: readonly ModelToolCall[];
  host: ToolHost;
  /** The tools a call may name this run (denied ones included: the policy refuses them by name). */
  tools: readonly ToolDefinition[];
  signal: AbortSignal;
  /** Where each call's result is recorded (and so reaches the conversation and the tally). */
  transcript: RunRecorder;
  metrics?: LoopMetrics;
  /** The run's recorded approvals; absent: every ask waits (and fails, with no way to park). */
  approvals?: ApprovalRecords;
  /** No approval can be recorded for these calls (an answer of this execution, repeating no earlier call's id): they are not looked up. */
  unrecorded?: boolean;
  run: { runId: string; workspaceId: string };
  /** The mode a plan-mode run goes on in once its plan is approved. */
  afterPlan: 'default' | 'auto';
  /** A try's host executes no write (decision 0027): nothing to mark started. */
  shadow?: boolean;
}

/** A call that asks a person and has no decision yet (none recorded, or still pending): the run parks on it. */
export type AskingCall = Extract<JudgedCall, { type: 'ask' }>;

/** The metric labels of a tool the run does not have: the model's made-up name never becomes a label. */
const UNKNOWN_TOOL = { server: '(unknown)', tool: '(unknown)' } as const;

/** A call's outcome, before it is recorded; `refused` when it never reached the tool. */
interface CalledTool {
  call: ModelToolCall;
  tool: ToolDefinition | undefined;
  args: Record<string, unknown> | undefined;
  result: { ok: true; content: string; durationMs: number; wouldHave?: true } | { ok: false; error: { code: string; message: string }; durationMs: number };
  refused: boolean;
  /** A plan's decision, recorded after the step's results (run-state.ts folds it). */
  notice?: { code: string; message: string; mode?: 'default' | 'auto' };
}

/**
 * Runs a step's tool calls side by side (a model may ask for several at
 * once) and records each result in order; the model sees it as delimited
 * data, or its error with a stable code. Calls the policy asks about are
 * looked up among the run's approvals: approved, the call runs exactly as
 * parked, at most once; denied or expired, it is refused naming who decided;
 * with no decision yet it is returned, without a result, for the run to park
 * on. A call the model got wrong is answered with the error: the model can
 * correct itself.
 */
export async function callTools(input: ToolCallsInput): Promise<AskingCall[]> {
  // A model names a tool by its model name (`web__echo`); a script's author may write the name
  // rules and transcripts use (`web.echo`). Both resolve; model names have no dot, so they never clash.
  const byName = new Map(input.tools.flatMap((tool) => [[tool.modelName, tool] as const, [tool.name, tool] as const]));
  const judged = input.calls.map((call) => judgeCall(call, byName.get(call.name), input));
  const asks = judged.filter((call): call is AskingCall => call.type === 'ask');
  let decided: Map<string, RecordedApproval> | Error = new Map();
  if (asks.length > 0 && input.approvals && !input.unrecorded) {
    // Approved, they run next: their servers connect while the approvals are read and the call marked.
    input.host.prepare?.(asks.filter((ask) => ask.request.kind === 'tool').map((ask) => ask.tool.name));
    decided = await input.approvals.ofCalls(input.run, asks.map((ask) => ask.call.id)).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
  }
  await markStarted(judged, input);
  const waiting: AskingCall[] = [];
  const outcomes = await Promise.all(
    judged.map((call) => {
      if (call.type === 'refuse') return refusal(call, call.code, call.message);
      if (call.type === 'run') return execute(call, input);
      // Fail closed: a call whose decision cannot be read does not run.
      if (decided instanceof Error) return { ...refusal(call, LOOP_ERRORS.approvalUnavailable, `the call's approval could not be read (${decided.message}); it did not run`), refused: false };
      const approval = decided.get(call.call.id);
      const decision = approval ? decisionOf(approval) : ({ type: 'pending' } as const);
      if (decision.type === 'pending') return void waiting.push(call);
      if (decision.type === 'refused') return refusal(call, decision.code, decision.message);
      return executeApproved(call, approval!, input);
    }),
  );
  record(input, outcomes.filter((outcome): outcome is CalledTool => outcome !== undefined));
  return waiting;
}

/**
 * Stores a `write_call_started` notice for each call about to run that is
 * not safe to repeat, with the answer that made it, before any of them runs
 * (decision 0051): a runner that dies during one leaves a run that ends
 * `runner_lost` instead of calling it again (run_in_write_call). Reads run
 * unmarked; a run lost in one is continued and calls it again.
 */
async function markStarted(judged: readonly JudgedCall[], input: ToolCallsInput): Promise<void> {
  if (input.shadow) return;
  const writes = judged.filter((call): call is Extract<JudgedCall, { type: 'run' }> => call.type === 'run' && !repeatableTool(call.tool, input.policy.guardedGlobs));
  if (writes.length === 0) return;
  for (const { call, tool } of writes) input.transcript.add('notice', { code: WRITE_CALL_STARTED, message: `${tool.name} started; not called again if its runner stops during it`, toolCallId: call.id });
  await input.transcript.flush();
}

/** Records the asks as refused or failed with one code (the run could not park on them, or the workspace denies every ask). */
export function answerAsks(input: Pick<ToolCallsInput, 'transcript' | 'metrics'>, asks: readonly AskingCall[], answer: (ask: AskingCall) => { code: string; message: string; refused: boolean }): void {
  record(
    input,
    asks.map((ask) => {
      const { code, message, refused } = answer(ask);
      return { ...refusal(ask, code, message), refused };
    }),
  );
}

function refusal(call: { call: ModelToolCall; tool: ToolDefinition | undefined; args: Record<string, unknown> | undefined }, code: string, message: string): CalledTool {
  const denied = isPlanTool(call.tool) && (code === TOOL_REFUSAL_CODES.approvalDenied || code === TOOL_REFUSAL_CODES.approvalExpired);
  return {
    call: call.call,
    tool: call.tool,
    args: call.args,
    result: { ok: false, error: { code, message }, durationMs: 0 },
    refused: true,
    // A plan refused is a plan denied: the run completes with it as its summary.
    ...(denied ? { notice: { code: PLAN_NOTICES.denied, message: String(call.args?.plan ?? '') } } : {}),
  };
}

async function execute(call: { call: ModelToolCall; tool: ToolDefinition; args: Record<string, unknown> }, input: ToolCallsInput): Promise<CalledTool> {
  return { call: call.call, tool: call.tool, args: call.args, result: await input.host.call(call.tool.name, call.args, input.signal), refused: false };
}

/**
 * An approved call: a plan lets the run go on in its `afterPlan` mode; a
 * tool call is marked executing first, so that it runs at most once — a mark
 * found already set means a runner died during it, and its outcome is unknown.
 * What the run recorded is stored before the mark, so that the run a crash
 * leaves is resumed from the answer that made this call.
 */
async function executeApproved(call: AskingCall, approval: RecordedApproval, input: ToolCallsInput): Promise<CalledTool> {
  if (call.request.kind === 'plan') {
    const message = `the plan is approved: carry it out (the run goes on in ${input.afterPlan} mode)`;
    return { call: call.call, tool: call.tool, args: call.args, result: { ok: true, content: message, durationMs: 0 }, refused: false, notice: { code: PLAN_NOTICES.approved, message, mode: input.afterPlan } };
  }
  let first: boolean;
  try {
    await input.transcript.flush();
    first = await approvals(input).startExecution(approval.id);
  } catch (error) {
    const message = `the call's execution could not be recorded (${error instanceof Error ? error.message : String(error)}); it did not run`;
    return { call: call.call, tool: call.tool, args: call.args, result: { ok: false, error: { code: LOOP_ERRORS.approvalUnavailable, message }, durationMs: 0 }, refused: false };
  }
  if (!first) {
    const message = 'this approved call was started before and its runner stopped during it: it may or may not have taken effect, and it is not called again';
    return { call: call.call, tool: call.tool, args: call.args, result: { ok: false, error: { code: TOOL_ERROR_CODES.outcomeUnknown, message }, durationMs: 0 }, refused: false };
  }
  return execute(call, input);
}

function approvals(input: ToolCallsInput): ApprovalRecords {
  if (!input.approvals) throw new Error('no approval records in this runner');
  return input.approvals;
}

/** Records each outcome in call order (its metric too), then the plan notices. */
function record(input: Pick<ToolCallsInput, 'transcript' | 'metrics'>, outcomes: readonly CalledTool[]): void {
  for (const { call, tool, args, result, refused } of outcomes) {
    const verdict: ToolCallVerdict = result.ok ? 'ok' : refused ? 'refused' : 'failed';
    input.metrics?.toolCall({ ...(tool ? { server: tool.server, tool: tool.name } : UNKNOWN_TOOL), result: verdict });
    input.transcript.add('tool', {
      toolCallId: call.id,
      name: tool?.name ?? call.name,
      arguments: args ?? call.arguments,
      ok: result.ok,
      ...(result.ok ? { result: result.content } : { error: { ...result.error } }),
      ...(verdict === 'refused' ? { refused: true as const } : {}),
      ...(result.ok && result.wouldHave ? { wouldHave: true as const } : {}),
      durationMs: result.durationMs,
    });
  }
  for (const { notice } of outcomes) if (notice) input.transcript.add('notice', notice);
}
