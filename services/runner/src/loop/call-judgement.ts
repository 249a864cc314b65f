import { MAX_APPROVAL_NOTE_CHARS, MAX_APPROVAL_PREVIEW_CHARS, TOOL_ERROR_CODES, TOOL_REFUSAL_CODES } from '@switchyard/contracts';
import type { ModelToolCall } from '../model/model';
import type { ApprovalRequest } from '../ports';
import type { ToolDefinition } from '../tools';
import type { RecordedApproval } from './loop-ports';
import { isPlanTool, planOf } from './plan-tool';
import { toolVerdict, type ToolPolicy } from './tool-policy';

/**
 * One call as the policy judged it, before anything ran: refused (with its
 * code), to run now, or to ask a person about (with the approval request it
 * parks on). The judging is separate from the executing (tool-calls.ts) so
 * that another host — a shadow run's — can take the same verdicts.
 */
export type JudgedCall =
  | { type: 'refuse'; call: ModelToolCall; tool: ToolDefinition | undefined; args: Record<string, unknown> | undefined; code: string; message: string }
  | { type: 'run'; call: ModelToolCall; tool: ToolDefinition; args: Record<string, unknown> }
  | { type: 'ask'; call: ModelToolCall; tool: ToolDefinition; args: Record<string, unknown>; request: ApprovalRequest };

/** What judging a call needs besides the call. */
export interface JudgeInput {
  policy: ToolPolicy;
  /** Replaces the run's secrets in the arguments preview. */
  redact: (text: string) => string;
  /** What the model said with its calls (the approval's `reason`). */
  reason: string | null;
}

/**
 * Judges one call: an unknown tool and arguments that are not a JSON object
 * are refused (the model can correct itself); the plan tool always asks
 * (kind `plan`); any other tool gets the policy's verdict (tool-policy.ts).
 */
export function judgeCall(call: ModelToolCall, tool: ToolDefinition | undefined, input: JudgeInput): JudgedCall {
  if (!tool) return { type: 'refuse', call, tool, args: undefined, code: TOOL_ERROR_CODES.unknown, message: `no tool named ${call.name} in this run` };
  const args = parseArguments(call.arguments);
  if (!args) return { type: 'refuse', call, tool, args: undefined, code: TOOL_ERROR_CODES.argumentsInvalid, message: 'the arguments are not a JSON object' };
  const reason = input.reason === null || input.reason === '' ? null : input.reason.slice(0, MAX_APPROVAL_NOTE_CHARS);
  if (isPlanTool(tool)) {
    const plan = planOf(args);
    if (plan === null) return { type: 'refuse', call, tool, args, code: TOOL_ERROR_CODES.argumentsInvalid, message: 'propose_plan takes {plan: string} (1 to 20000 characters)' };
    const preview = cap(input.redact(plan));
    return { type: 'ask', call, tool, args, request: { kind: 'plan', toolCallId: call.id, tool: null, ...preview, reason } };
  }
  const verdict = toolVerdict(tool, input.policy);
  switch (verdict.type) {
    case 'refuse':
      return { type: 'refuse', call, tool, args, code: verdict.code, message: verdict.message };
    case 'run':
      return { type: 'run', call, tool, args };
    case 'ask': {
      const preview = cap(input.redact(JSON.stringify(args)));
      const described = { server: tool.server, name: tool.name, class: verdict.class, why: verdict.why };
      return { type: 'ask', call, tool, args, request: { kind: 'tool', toolCallId: call.id, tool: described, ...preview, reason } };
    }
  }
}

/**
 * What a recorded decision means for its call: run it (approved), refuse it
 * naming who decided and their note (denied, expired), or still wait
 * (pending).
 */
export function decisionOf(approval: RecordedApproval): { type: 'approved' } | { type: 'pending' } | { type: 'refused'; code: string; message: string } {
  switch (approval.status) {
    case 'approved':
      return { type: 'approved' };
    case 'pending':
      return { type: 'pending' };
    case 'expired':
      return { type: 'refused', code: TOOL_REFUSAL_CODES.approvalExpired, message: `nobody decided this call before its approval expired (${approval.expiresAt}); expired means denied` };
    case 'denied':
      return { type: 'refused', code: TOOL_REFUSAL_CODES.approvalDenied, message: deniedMessage(approval) };
  }
}

function deniedMessage(approval: RecordedApproval): string {
  const by = approval.decidedBy;
  const note = approval.note ? `; their note: ${approval.note}` : '';
  if (!by) return `this call was denied${note}`;
  if (by.type === 'member') return `a person (member ${by.userId}) denied this call${note}`;
  const why = { expired: 'its approval expired', run_stopped: 'the run was stopped', approvals_denied: 'the workspace denies every approval request (setting approvals: deny)' }[by.reason];
  return `the platform denied this call: ${why}${note}`;
}

/** The text cut to the preview limit, and whether it was. */
function cap(text: string): { argumentsPreview: string; truncated: boolean } {
  return text.length > MAX_APPROVAL_PREVIEW_CHARS ? { argumentsPreview: text.slice(0, MAX_APPROVAL_PREVIEW_CHARS), truncated: true } : { argumentsPreview: text, truncated: false };
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
