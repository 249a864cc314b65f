import { AppError, ErrorCode } from '@switchyard/contracts';
import { matchesStarGlob } from '@switchyard/core';
import type { Principal } from '../auth-ports';
import type { CollaboratorStore } from '../team-ports';

/**
 * `parentScope` (decision 0059): a delegated run may call a platform tool only if every
 * run it was delegated from could (its `tools.platform` globs match the name), so a parent
 * cannot reach through a child what it was not given. A person's token and a run that was
 * not delegated pass (the runner offers a run its own tools only).
 */
export async function assertInParentScope(deps: { collaborators: Pick<CollaboratorStore, 'ancestorPlatformGlobs'> }, principal: Principal, tool: string): Promise<void> {
  if (!principal.agent) return;
  const ancestors = await deps.collaborators.ancestorPlatformGlobs(principal.workspaceId, principal.agent.runId);
  const lacking = ancestors.find((ancestor) => !ancestor.globs.some((glob) => matchesStarGlob(glob, tool)));
  if (lacking) {
    throw new AppError(ErrorCode.TOOL_OUT_OF_SCOPE, `${tool} is outside the scope of the run this one was delegated from`, { tool, runId: lacking.runId });
  }
}
