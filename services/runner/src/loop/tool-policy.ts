import { TOOL_REFUSAL_CODES, type AgentSpec, type ToolRefusalCode } from '@switchyard/contracts';
import { matchesToolGlob, type ToolDefinition } from '../tools';

export type ToolVerdict = { allowed: true } | { allowed: false; code: ToolRefusalCode; message: string };

type Policy = Pick<AgentSpec, 'permissionMode' | 'rules'>;

const denied = (policy: Policy, name: string) => policy.rules.deny.some((glob) => matchesToolGlob(glob, name));
const allowed = (policy: Policy, name: string) => policy.rules.allow.some((glob) => matchesToolGlob(glob, name));

/**
 * Read-only as far as policy may rely on it: only the platform's own hints
 * loosen anything. An external server's `readOnlyHint` is a claim by the
 * server, so its tools count as writes (PITFALLS: hints only tighten).
 */
function reliablyReadOnly(tool: ToolDefinition): boolean {
  return tool.trusted && tool.readOnly;
}

/** Guarded (asks even in `auto`): destructive by its hint, or any tool of an untrusted server. */
function guarded(tool: ToolDefinition): boolean {
  return tool.destructive || !tool.trusted;
}

/** The tools the model is offered: every connected tool but those a deny rule names. */
export function offeredTools(tools: readonly ToolDefinition[], policy: Policy): ToolDefinition[] {
  return tools.filter((tool) => !denied(policy, tool.name));
}

/**
 * Whether a call may run now. Deny wins over everything; an allow rule then
 * lets a tool run in any mode; otherwise the mode decides: `bypass` runs
 * everything, `auto` all but guarded tools, `default` only read-only tools,
 * `plan` only read-only tools. What would need a person's approval is refused
 * with `approval_required` until approvals exist (decision 0016).
 */
export function toolVerdict(tool: ToolDefinition, policy: Policy): ToolVerdict {
  if (denied(policy, tool.name)) return { allowed: false, code: TOOL_REFUSAL_CODES.denied, message: `a deny rule of this agent names ${tool.name}` };
  if (allowed(policy, tool.name) || reliablyReadOnly(tool)) return { allowed: true };
  switch (policy.permissionMode) {
    case 'bypass':
      return { allowed: true };
    case 'auto':
      return guarded(tool)
        ? { allowed: false, code: TOOL_REFUSAL_CODES.approvalRequired, message: `${tool.name} is guarded; in auto mode it needs a person's approval` }
        : { allowed: true };
    case 'default':
      return { allowed: false, code: TOOL_REFUSAL_CODES.approvalRequired, message: `${tool.name} may change things; in default mode it needs a person's approval` };
    case 'plan':
      return { allowed: false, code: TOOL_REFUSAL_CODES.planReadOnly, message: `plan mode allows read-only tools only; ${tool.name} is not one` };
  }
}
