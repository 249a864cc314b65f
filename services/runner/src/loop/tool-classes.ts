import { SAVE_AGENT_TOOL, type ToolClass } from '@switchyard/contracts';
import { matchesToolGlob, type ToolDefinition } from '../tools';

/**
 * The platform's governance tools (decisions, settings, tokens, secrets,
 * deletes): guarded whatever their hints say (docs/tool-classes.md).
 */
export const PLATFORM_GUARDED_GLOBS: readonly string[] = [
  'platform.decide_approval',
  SAVE_AGENT_TOOL,
  'platform.*setting*',
  'platform.*token*',
  'platform.*secret*',
  'platform.delete_*',
  'platform.*_delete',
];

/**
 * The platform's tools every call of which asks a person, whatever the mode
 * and the allow rules say (a deny rule still refuses): an agent's new version
 * of an agent (decision 0058).
 */
export const PLATFORM_ALWAYS_ASK: readonly string[] = [SAVE_AGENT_TOOL];

/** A tool's class and, in one sentence, why it has it (shown on every approval). */
export interface ToolClassification {
  class: ToolClass;
  why: string;
}

/**
 * Classes a tool (docs/tool-classes.md). An operator's guarded glob wins;
 * the platform's own tools are read (read-only hint), guarded (governance, or
 * a destructive hint) or write; an external server's tool is guarded unless
 * it says `destructiveHint: false` (then write) — its `readOnlyHint` is the
 * server's own claim and never loosens anything.
 */
export function classifyTool(tool: ToolDefinition, guardedGlobs: readonly string[] = []): ToolClassification {
  if (guardedGlobs.some((glob) => matchesToolGlob(glob, tool.name))) return { class: 'guarded', why: `the operator's guarded tools (RUNNER_GUARDED_TOOLS) name ${tool.name}` };
  if (tool.trusted) {
    if (PLATFORM_GUARDED_GLOBS.some((glob) => matchesToolGlob(glob, tool.name))) return { class: 'guarded', why: `${tool.name} is a governance tool of the platform` };
    if (tool.readOnly) return { class: 'read', why: `${tool.name} is a read-only tool of the platform` };
    if (tool.destructive) return { class: 'guarded', why: `${tool.name} is a destructive tool of the platform` };
    return { class: 'write', why: `${tool.name} is a tool of the platform that changes things` };
  }
  if (tool.destructive) return { class: 'guarded', why: `${tool.name} is an external tool not marked destructiveHint: false` };
  return { class: 'write', why: `${tool.name} is an external tool marked destructiveHint: false` };
}

/**
 * Whether a call of the tool may be made again when its runner died during
 * it (decision 0051): a tool that says it changes nothing (`readOnlyHint`)
 * and, from an external server, also `destructiveHint: false` — never one
 * the operator or the platform guards. Every other call is marked started
 * before it runs, and a run lost inside it ends `runner_lost`. A server
 * that lies here gets its own call repeated; no approval is ever skipped.
 */
export function repeatableTool(tool: ToolDefinition, guardedGlobs: readonly string[] = []): boolean {
  if (!tool.readOnly || (!tool.trusted && tool.destructive)) return false;
  return classifyTool(tool, guardedGlobs).class !== 'guarded';
}
