import { TOOL_ERROR_CODES } from '@switchyard/contracts';
import type { AgentSpec, ToolCallResult as ToolCallVerdict } from '@switchyard/contracts';
import type { ModelToolCall } from '../model/model';
import type { ToolCallResult, ToolDefinition, ToolHost } from '../tools';
import type { LoopMetrics } from './loop-ports';
import type { RunRecorder } from './run-recorder';
import { toolVerdict } from './tool-policy';

/** Everything one step's tool calls need. */
export interface ToolCallsInput {
  calls: readonly ModelToolCall[];
  host: ToolHost;
  /** The tools offered to the model this run. */
  tools: readonly ToolDefinition[];
  spec: Pick<AgentSpec, 'permissionMode' | 'rules'>;
  signal: AbortSignal;
  /** Where each call's result is recorded (and so reaches the conversation and the tally). */
  transcript: RunRecorder;
  metrics?: LoopMetrics;
}

/** The metric labels of a tool the run does not have: the model's made-up name never becomes a label. */
const UNKNOWN_TOOL = { server: '(unknown)', tool: '(unknown)' } as const;

/**
 * Runs a step's tool calls side by side (a model may ask for several at
 * once) and records each result in order; the model sees it as delimited
 * data, or its error with a stable code (run-state.ts renders it). A call the model got wrong — an unknown tool,
 * arguments that are not a JSON object, a tool the policy refuses — is
 * answered with the error and the run goes on: the model can correct itself.
 */
export async function callTools(input: ToolCallsInput): Promise<void> {
  // A model names a tool by its model name (`web__echo`); a script's author may write the name
  // rules and transcripts use (`web.echo`). Both resolve; model names have no dot, so they never clash.
  const byName = new Map(input.tools.flatMap((tool) => [[tool.modelName, tool] as const, [tool.name, tool] as const]));
  const outcomes = await Promise.all(input.calls.map((call) => callOne(call, byName.get(call.name), input)));
  outcomes.forEach(({ call, tool, args, result, refused }) => {
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
  });
}

/** A tool host result, or a refusal made before the call (its code is the loop's: tool-policy.ts). */
type CallOutcome = ToolCallResult | { ok: false; error: { code: string; message: string }; durationMs: number };

/** One call's outcome; `refused` when it never reached the tool (unknown, bad arguments, the policy). */
interface CalledTool {
  call: ModelToolCall;
  tool: ToolDefinition | undefined;
  args: Record<string, unknown> | undefined;
  result: CallOutcome;
  refused: boolean;
}

async function callOne(call: ModelToolCall, tool: ToolDefinition | undefined, input: ToolCallsInput): Promise<CalledTool> {
  const refuse = (code: string, message: string) => ({ call, tool, args: undefined, result: { ok: false as const, error: { code, message }, durationMs: 0 }, refused: true });
  if (!tool) return refuse(TOOL_ERROR_CODES.unknown, `no tool named ${call.name} in this run`);
  const args = parseArguments(call.arguments);
  if (!args) return refuse(TOOL_ERROR_CODES.argumentsInvalid, 'the arguments are not a JSON object');
  const verdict = toolVerdict(tool, input.spec);
  if (!verdict.allowed) return { ...refuse(verdict.code, verdict.message), args };
  return { call, tool, args, result: await input.host.call(tool.name, args, input.signal), refused: false };
}

/** The arguments as a JSON object, or undefined when they are not one (an empty string counts as `{}`). */
function parseArguments(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
