import { AgentSpecSchema, CraftAgentArgumentsSchema, type AgentSpec, type CraftAgentResult } from '@switchyard/contracts';
import { applyJsonPatch } from './json-patch';

/** A draft on the crafting canvas: a whole agent spec without `enabled` (state, not spec). */
export type CraftDraft = Omit<AgentSpec, 'enabled'>;

const issuesOf = (error: { issues: ReadonlyArray<{ code: string; path: readonly PropertyKey[]; message: string }> }) => error.issues.map((issue) => ({ code: issue.code, path: issue.path.map(String), message: issue.message }));

/**
 * `craft_agent` (decision 0056): applies its arguments to the draft — they
 * must be a patch of add/replace/remove, every path must be in the draft, and
 * the result a valid agent spec (defaults filled in, `enabled` dropped). All or
 * nothing; the draft given is never changed. The outcome is the tool's result.
 */
export function applyCraftPatch(draft: CraftDraft, args: unknown): CraftAgentResult {
  const parsed = CraftAgentArgumentsSchema.safeParse(args);
  if (!parsed.success) return { ok: false, code: 'PATCH_ARGUMENTS_INVALID', message: 'the arguments are not {patch: [add|replace|remove operations]}', issues: issuesOf(parsed.error) };
  const { patch } = parsed.data;
  const applied = applyJsonPatch(draft, patch);
  if (!applied.ok) return { ok: false, code: 'PATCH_PATH_NOT_FOUND', message: `operation ${applied.index} (${applied.path}): ${applied.reason}` };
  const spec = AgentSpecSchema.safeParse(applied.value);
  if (!spec.success) return { ok: false, code: 'PATCH_SPEC_INVALID', message: 'the patched draft is not a valid agent spec', issues: issuesOf(spec.error) };
  const { enabled: _enabled, ...next } = spec.data;
  return { ok: true, patch, draft: next };
}
