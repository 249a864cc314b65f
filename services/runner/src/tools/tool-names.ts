import { createHash } from 'node:crypto';
import { matchesStarGlob } from '@switchyard/core';

/** The server name of the platform's own tools; an agent's MCP server may not take it. */
export const PLATFORM_SERVER = 'platform';

/** Tool names the OpenAI API accepts for functions. */
export const MODEL_TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** `<server>.<tool>`: the name a run's tools are known by (transcripts, rules, policies). */
export function qualifyToolName(server: string, tool: string): string {
  return `${server}.${tool}`;
}

/**
 * The name the model sees for a tool. The dot after the server becomes `__`
 * (`github.create_issue` → `github__create_issue`); a name that still breaks
 * the OpenAI rule (other characters, over 64) is cleaned, cut, and suffixed
 * with a hash of the full name so different tools keep different names.
 * Deterministic; reverse it with fromModelToolName.
 */
export function toModelToolName(name: string): string {
  const simple = name.replace('.', '__');
  if (MODEL_TOOL_NAME_PATTERN.test(simple)) return simple;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${simple.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64 - hash.length - 1)}_${hash}`;
}

/**
 * The tool among `names` that toModelToolName maps to `modelName`; undefined
 * when none does (the model made a name up). The tool host keeps model
 * names unique among its tools, so the answer is never ambiguous.
 */
export function fromModelToolName(modelName: string, names: Iterable<string>): string | undefined {
  for (const name of names) if (toModelToolName(name) === modelName) return name;
  return undefined;
}

/** Whether a tool name matches a glob of `tools.platform` or `rules` (`*`: any run of characters). */
export const matchesToolGlob = matchesStarGlob;
