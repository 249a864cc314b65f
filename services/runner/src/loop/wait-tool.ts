import { WaitForEventToolInputSchema, type WaitForEventResult } from '@switchyard/contracts';
import { matchesStarGlob } from '@switchyard/core';
import { PLATFORM_SERVER, qualifyToolName, toModelToolName, type ToolDefinition } from '../tools';

const WAIT_TOOL_BARE = 'wait_for_event';
const WAIT_TOOL_NAME = qualifyToolName(PLATFORM_SERVER, WAIT_TOOL_BARE);

/**
 * `platform.wait_for_event {kind, filter?, timeoutMs}` (decision 0055):
 * offered to agents whose `tools.platform` globs name it. The runner answers
 * it itself, as it does the plan tool — what it does is park the run
 * (`awaiting_event`), which only the loop can; its result is the matching
 * fact, or a typed timeout.
 */
export const WAIT_TOOL: ToolDefinition = {
  name: WAIT_TOOL_NAME,
  modelName: toModelToolName(WAIT_TOOL_NAME),
  description:
    'Wait for a fact of this workspace recorded from now on: the run pauses (holding nothing) until a fact whose kind matches `kind` (a kind glob such as `ci.*`) ' +
    'and, if given, `filter` (the trigger filter language) is recorded, or `timeoutMs` passes. The result is {"type":"fact","fact":…} or {"type":"timeout",…}.',
  inputSchema: {
    type: 'object',
    properties: {
      kind: { type: 'string', description: 'A fact kind or kind glob: `ci.finished`, `ci.*`.' },
      filter: { type: 'object', description: 'A trigger filter, e.g. {"path": "payload.branch", "op": "eq", "value": "main"}.' },
      timeoutMs: { type: 'integer', minimum: 1_000, maximum: 604_800_000, description: 'How long to wait at most, in milliseconds.' },
    },
    required: ['kind', 'timeoutMs'],
    additionalProperties: false,
  },
  server: PLATFORM_SERVER,
  readOnly: true,
  destructive: false,
  trusted: true,
};

/** Whether the agent's platform tool globs offer the wait tool. */
export function offersWaitTool(platformGlobs: readonly string[]): boolean {
  return platformGlobs.some((glob) => matchesStarGlob(glob, WAIT_TOOL_BARE));
}

/** Whether a call names the wait tool (by its model name or its full name). */
export function isWaitCall(name: string): boolean {
  return name === WAIT_TOOL.modelName || name === WAIT_TOOL.name;
}

/** The wait a call's arguments ask for, or the schema's complaint (the model can correct itself). */
export function waitInputOf(args: Record<string, unknown>): { ok: true; input: ReturnType<typeof WaitForEventToolInputSchema.parse> } | { ok: false; message: string } {
  const parsed = WaitForEventToolInputSchema.safeParse(args);
  if (parsed.success) return { ok: true, input: parsed.data };
  return { ok: false, message: parsed.error.issues.map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`).join('; ') };
}

/** The tool result the model reads. */
export function waitResultContent(result: WaitForEventResult): string {
  return JSON.stringify(result);
}
