import { TOOL_REFUSAL_CODES, type AgentSpec, type ToolClass, type ToolRefusalCode } from '@switchyard/contracts';
import { matchesToolGlob, type ToolDefinition } from '../tools';
import { classifyTool, PLATFORM_ALWAYS_ASK } from './tool-classes';

/**
 * What the policy says of one call (docs/tool-classes.md): run it now, ask a
 * person first (the run parks on an approval), or refuse it. Each verdict
 * carries the tool's class and why, as approvals show them.
 */
export type ToolVerdict =
  | { type: 'run'; class: ToolClass; why: string }
  | { type: 'ask'; class: ToolClass; why: string }
  | { type: 'refuse'; class: ToolClass; code: ToolRefusalCode; message: string };

/** The policy a run's calls are judged by: the agent's mode and rules, and the operator's guarded globs. */
export interface ToolPolicy extends Pick<AgentSpec, 'permissionMode'> {
  rules: Pick<AgentSpec['rules'], 'allow' | 'deny' | 'ask'>;
  /** RUNNER_GUARDED_TOOLS. @defaultValue [] */
  guardedGlobs?: readonly string[];
}

const names = (globs: readonly string[], name: string) => globs.some((glob) => matchesToolGlob(glob, name));

/** The tools the model is offered: every connected tool but those a deny rule names. */
export function offeredTools(tools: readonly ToolDefinition[], policy: Pick<ToolPolicy, 'rules'>): ToolDefinition[] {
  return tools.filter((tool) => !names(policy.rules.deny, tool.name));
}

/**
 * Whether a call may run now. A deny rule wins over everything. Then the
 * base verdict: an allow rule runs the tool in any mode, a read tool runs in
 * every mode, else the mode decides — `bypass` runs write and guarded tools,
 * `auto` runs writes and asks about guarded ones, `default` asks about both,
 * `plan` refuses both. Last, a `rules.ask` glob tightens: a call that would
 * run asks instead (even in `auto` and `bypass`, even with an allow rule); a
 * refusal stays a refusal. The platform's always-ask tools (PLATFORM_ALWAYS_ASK)
 * ask in every mode unless denied.
 */
export function toolVerdict(tool: ToolDefinition, policy: ToolPolicy): ToolVerdict {
  const classified = classifyTool(tool, policy.guardedGlobs);
  if (names(policy.rules.deny, tool.name)) return { type: 'refuse', class: classified.class, code: TOOL_REFUSAL_CODES.denied, message: `a deny rule of this agent names ${tool.name}` };
  if (tool.trusted && PLATFORM_ALWAYS_ASK.includes(tool.name)) return { type: 'ask', class: classified.class, why: `${tool.name} always asks a person: an agent's new version of an agent is approved by a person` };
  const base = baseVerdict(tool, classified.class, classified.why, policy);
  if (base.type === 'run' && names(policy.rules.ask, tool.name)) return { type: 'ask', class: classified.class, why: `a rules.ask glob of this agent names ${tool.name}` };
  return base;
}

function baseVerdict(tool: ToolDefinition, toolClass: ToolClass, why: string, policy: ToolPolicy): ToolVerdict {
  if (names(policy.rules.allow, tool.name)) return { type: 'run', class: toolClass, why: `an allow rule of this agent names ${tool.name}` };
  if (toolClass === 'read') return { type: 'run', class: toolClass, why };
  switch (policy.permissionMode) {
    case 'bypass':
      return { type: 'run', class: toolClass, why };
    case 'auto':
      return toolClass === 'guarded' ? { type: 'ask', class: toolClass, why: `${why}; auto mode asks about guarded tools` } : { type: 'run', class: toolClass, why };
    case 'default':
      return { type: 'ask', class: toolClass, why: `${why}; default mode asks about every tool that is not read-only` };
    case 'plan':
      return { type: 'refuse', class: toolClass, code: TOOL_REFUSAL_CODES.planReadOnly, message: `plan mode allows read-only tools only; ${tool.name} is ${toolClass}` };
  }
}
