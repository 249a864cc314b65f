import { AgentSpecSchema, TryFactSchema, type AgentSpec, type Fact } from '@switchyard/contracts';
import { z } from 'zod';
import type { RunReads, StartedRun } from './ports';

/** A stored hand-built fact of a try: the contract's shape plus the id the gateway gave it. */
const StoredTryFactSchema = TryFactSchema.extend({ id: z.uuid() });

/** Whether a run is a try-drive (decision 0027): executed in shadow. */
export function isTryRun(run: Pick<StartedRun, 'context'>): boolean {
  return run.context.origin.type === 'try';
}

/**
 * The policy a shadow run is executed with. Nothing it calls can change
 * anything — ShadowToolHost runs only the platform's own reads and captures
 * every other call — so nothing needs a person's approval: the mode is
 * `bypass` and `rules.ask` is empty (an ask would be a wouldHave, never a park).
 * Deny rules stay: a denied tool is still not offered.
 */
export function shadowPolicy(spec: AgentSpec): AgentSpec {
  return { ...spec, permissionMode: 'bypass', rules: { ...spec.rules, ask: [] } };
}

/**
 * A try run ready to execute: the exact spec stored with the try (a draft's
 * or a saved version's copy), under the shadow policy, and its hand-built
 * fact (seq 0: never recorded) as the activating fact. Null when the try's
 * record is missing or does not parse.
 */
export async function prepareTryRun(reads: Pick<RunReads, 'tryOf'>, run: StartedRun): Promise<{ run: StartedRun; spec: AgentSpec } | null> {
  const stored = await reads.tryOf(run.id);
  if (!stored) return null;
  const spec = AgentSpecSchema.safeParse(stored.spec);
  const fact = stored.fact === null ? null : StoredTryFactSchema.safeParse(stored.fact);
  if (!spec.success || (fact && !fact.success)) return null;
  const handBuilt: Fact | null = fact?.success
    ? { ...fact.data, seq: 0, workspace: run.workspaceSlug, ts: stored.createdAt.toISOString(), actor: { type: 'member', id: stored.createdBy } }
    : null;
  return { run: { ...run, context: { ...run.context, fact: run.context.fact ?? handBuilt } }, spec: shadowPolicy(spec.data) };
}
