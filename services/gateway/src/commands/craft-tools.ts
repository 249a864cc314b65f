import { z } from 'zod';
import { AgentSpecSchema, CraftAgentArgumentsSchema, MAX_CRAFT_PATCH_OPS, type CraftEvent, type CraftPatchOperation, type CraftPatchRefusal } from '@switchyard/contracts';
import { applyJsonPatch } from '@switchyard/core';
import type { StoredAgentSpec } from '../agent-ports';
import type { CraftTool } from '../craft-ports';

/** The crafting agent's two tools (decision 0056), as offered to the model. */
export const CRAFT_TOOLS: readonly CraftTool[] = [
  {
    name: 'craft_agent',
    description:
      'Change the draft agent on the canvas with a JSON Patch (RFC 6902: add, replace, remove; paths are JSON Pointers into the spec, e.g. /triggers/0/filter). ' +
      'The whole patch is applied or none of it; the patched draft must be a valid agent spec, else you get a refusal with a code and the issues at their path.',
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['patch'],
      properties: {
        patch: {
          type: 'array',
          minItems: 1,
          maxItems: MAX_CRAFT_PATCH_OPS,
          items: {
            type: 'object',
            required: ['op', 'path'],
            properties: { op: { type: 'string', enum: ['add', 'replace', 'remove'] }, path: { type: 'string' }, value: {} },
          },
        },
      },
    },
  },
  {
    name: 'try_agent_draft',
    description:
      'Try the draft as it is now, once, in shadow (nothing it does takes effect) on a recorded fact: eventId, or by default the newest fact its triggers match. ' +
      'The person watches the try on the page.',
    parameters: { type: 'object', additionalProperties: false, properties: { eventId: { type: 'string', description: 'a recorded fact id' } } },
  },
];

/** What the crafting agent is told, before the conversation. */
export const CRAFT_INSTRUCTIONS = [
  'You are the crafting agent of Switchyard: you help a person build an agent that is woken by facts.',
  'The draft is on the canvas; every user message ends with the canvas as it is now (the person may have edited it by hand: keep their edits).',
  'Change the draft only with the craft_agent tool (a JSON Patch); try it with try_agent_draft when the person asks.',
  'A spec has: name (lowercase, - and _), instructions, task, model {provider, name}, triggers [{kind, filter?}], tools {platform, mcpServers}, permissionMode (default|auto|bypass|plan), budget {perRunUsd, perDayUsd, maxTurns}, flow {concurrency, cooldownMs, queueCap, debounceMs, throttle?}.',
  'A trigger filter is {path, op, value} (op: eq, ne, contains, gt, gte, lt, lte, in, nin, exists, startsWith, matches) over kind, subject.type, subject.id, actor.* or payload.<field>, or {all: [...]}, {any: [...]}, {not: …}.',
  'Answer briefly, saying what you changed.',
].join('\n');

/** A patch the draft took, or why not: the page's event and the model's tool result. */
export type CraftPatchOutcome =
  | { ok: true; patch: CraftPatchOperation[]; draft: StoredAgentSpec }
  | { ok: false; code: CraftPatchRefusal; message: string; issues?: unknown[] };

const issuesOf = (error: z.ZodError) => error.issues.map((issue) => ({ code: issue.code, path: issue.path.map(String), message: issue.message }));

/**
 * Applies `craft_agent`'s raw arguments to the draft: they must be a patch of
 * add/replace/remove, every path must be in the draft, and the result a valid
 * agent spec (defaults filled in, `enabled` dropped: it is state, not spec).
 * All or nothing; the draft given is never changed.
 */
export function applyCraftPatch(draft: StoredAgentSpec, rawArguments: string): CraftPatchOutcome {
  let args: unknown;
  try {
    args = JSON.parse(rawArguments);
  } catch {
    return { ok: false, code: 'PATCH_ARGUMENTS_INVALID', message: 'the arguments are not JSON' };
  }
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

/** The page's event for a patch outcome. */
export function patchEvent(outcome: CraftPatchOutcome): CraftEvent {
  if (outcome.ok) return { type: 'patch', patch: outcome.patch, draft: outcome.draft };
  return { type: 'patch_refused', code: outcome.code, message: outcome.message, ...(outcome.issues ? { issues: outcome.issues } : {}) };
}
