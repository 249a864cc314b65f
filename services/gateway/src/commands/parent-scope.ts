import { AppError, ErrorCode } from '@switchyard/contracts';
import { matchesStarGlob } from '@switchyard/core';
import type { Principal } from '../auth-ports';
import type { CollaboratorStore } from '../team-ports';

type ScopeDeps = { collaborators: Pick<CollaboratorStore, 'ancestorPlatformGlobs'> };
type Ancestors = Awaited<ReturnType<CollaboratorStore['ancestorPlatformGlobs']>>;

/** The nearest run up the chain whose globs do not match the tool, if any. */
const lacking = (ancestors: Ancestors, tool: string) => ancestors.find((ancestor) => !ancestor.globs.some((glob) => matchesStarGlob(glob, tool)));

/**
 * `parentScope` (decision 0059): a delegated run may call a platform tool only if every
 * run it was delegated from could (its `tools.platform` globs match the name), so a parent
 * cannot reach through a child what it was not given. A person's token and a run that was
 * not delegated pass (the runner offers a run its own tools only; `tools/list` is narrowed alike).
 */
export async function assertInParentScope(deps: ScopeDeps, principal: Principal, tool: string): Promise<void> {
  if (!principal.agent) return;
  const ancestors = await deps.collaborators.ancestorPlatformGlobs(principal.workspaceId, principal.agent.runId);
  const outside = lacking(ancestors, tool);
  if (outside) {
    throw new AppError(ErrorCode.TOOL_OUT_OF_SCOPE, `${tool} is outside the scope of the run this one was delegated from`, { tool, runId: outside.runId });
  }
}

/**
 * The tool names a caller is offered within its parents' scope (`tools/list`), so that a
 * delegated run's runner offers its model only what it may call: its own globs ∩ its parents'.
 */
export async function inParentScope<T extends { name: string }>(deps: ScopeDeps, principal: Principal, tools: readonly T[]): Promise<T[]> {
  if (!principal.agent) return [...tools];
  const ancestors = await deps.collaborators.ancestorPlatformGlobs(principal.workspaceId, principal.agent.runId);
  return tools.filter((tool) => !lacking(ancestors, tool.name));
}

