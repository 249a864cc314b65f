import { CRAFT_TOOL_NAMES, TryAgentDraftArgumentsSchema, type CraftAgentResult, type RunOrigin, type TryAgentDraftResult } from '@switchyard/contracts';
import { applyCraftPatch, type CraftDraft } from '@switchyard/core';
import type { ToolCallResult, ToolDefinition, ToolHost, ToolServerNotice } from './tool-host';
import { qualifyToolName, PLATFORM_SERVER } from './tool-names';

/** The crafting run's origin (decision 0056). */
export type CraftOrigin = Extract<RunOrigin, { type: 'craft' }>;

/** The gateway's platform tool that starts a crafting run's shadow try (served to crafting runs' tokens only). */
export const CRAFT_TRY_PLATFORM_TOOL = 'try_crafted_draft';

/** The crafting tools' server name in the transcript and the trace (not an MCP server: served here). */
const CRAFT_SERVER = 'craft';

const tool = (name: string, description: string, inputSchema: Record<string, unknown>): ToolDefinition => ({
  name,
  modelName: name,
  description,
  inputSchema,
  server: CRAFT_SERVER,
  // Neither changes anything outside the conversation: a patch changes the draft, a try runs in shadow.
  readOnly: true,
  destructive: false,
  trusted: true,
});

/** The two tools the crafting agent is offered (decision 0056). */
export const CRAFT_TOOLS: readonly ToolDefinition[] = [
  tool(
    CRAFT_TOOL_NAMES.patch,
    'Change the draft agent on the canvas with a JSON Patch (RFC 6902: add, replace, remove; paths are JSON Pointers into the spec, e.g. /triggers/0/filter). ' +
      'The whole patch is applied or none of it; the patched draft must be a valid agent spec, else you get a refusal with a code and the issues at their path.',
    {
      type: 'object',
      additionalProperties: false,
      required: ['patch'],
      properties: {
        patch: {
          type: 'array',
          minItems: 1,
          items: { type: 'object', required: ['op', 'path'], properties: { op: { type: 'string', enum: ['add', 'replace', 'remove'] }, path: { type: 'string' }, value: {} } },
        },
      },
    },
  ),
  tool(
    CRAFT_TOOL_NAMES.try,
    'Try the draft as it is now, once, in shadow (nothing it does takes effect) on a recorded fact: eventId, or by default the newest fact its triggers match. The person watches the try on the page.',
    { type: 'object', additionalProperties: false, properties: { eventId: { type: 'string', description: 'a recorded fact id' } } },
  ),
];

const answer = (result: CraftAgentResult | TryAgentDraftResult): ToolCallResult => ({ ok: true, content: JSON.stringify(result), durationMs: 0 });

/**
 * The tool host of a crafting run (decision 0056): it offers `craft_agent`
 * and `try_agent_draft` and nothing else. The draft is this turn's: the
 * canvas the person sent with the message (hand edits included), patched by
 * each accepted `craft_agent`; a try sends it to the gateway's
 * `try_crafted_draft` through the run's platform connection, made (agent token
 * and listing) at the first try only — most turns never try, and the first
 * patch does not wait for it. The tries are kept under the crafted agent's
 * (or the first try's draft) id.
 * A refusal is the tool's answer (`ok: false` in its JSON), so the model may
 * try again; the page reads the same answers from the transcript.
 */
export class CraftToolHost implements ToolHost {
  private draft: CraftDraft;
  private agentId: string | undefined;
  private inner: Promise<{ host: ToolHost; notices: ToolServerNotice[] }> | undefined;

  constructor(
    /** Mints the run's agent token and lists its platform tools: called once, at the first try. */
    private readonly connect: () => Promise<{ host: ToolHost; notices: ToolServerNotice[] }>,
    origin: CraftOrigin,
  ) {
    this.draft = origin.canvas as CraftDraft;
    this.agentId = origin.agentId;
  }

  tools(): ToolDefinition[] {
    return [...CRAFT_TOOLS];
  }

  async call(name: string, args: unknown, signal: AbortSignal): Promise<ToolCallResult> {
    if (name === CRAFT_TOOL_NAMES.patch) {
      const outcome = applyCraftPatch(this.draft, args);
      if (outcome.ok) this.draft = outcome.draft;
      return answer(outcome);
    }
    if (name === CRAFT_TOOL_NAMES.try) return this.tryDraft(args, signal);
    return { ok: false, error: { code: 'tool_unknown', message: `no tool ${name}: use ${CRAFT_TOOL_NAMES.patch} or ${CRAFT_TOOL_NAMES.try}` }, durationMs: 0 };
  }

  async close(): Promise<void> {
    const inner = await this.inner?.catch(() => undefined);
    await inner?.host.close();
  }

  private async tryDraft(args: unknown, signal: AbortSignal): Promise<ToolCallResult> {
    const parsed = TryAgentDraftArgumentsSchema.safeParse(args ?? {});
    if (!parsed.success) return answer({ ok: false, code: 'TRY_ARGUMENTS_INVALID', message: 'the arguments are not {eventId?}' });
    const started = performance.now();
    this.inner ??= this.connect();
    let platform: ToolHost;
    try {
      platform = (await this.inner).host;
    } catch (error) {
      return answer({ ok: false, code: 'tool_unavailable', message: `the platform could not be reached for the try: ${error instanceof Error ? error.message : String(error)}` });
    }
    const called = await platform.call(
      qualifyToolName(PLATFORM_SERVER, CRAFT_TRY_PLATFORM_TOOL),
      { spec: this.draft, ...(this.agentId ? { agentId: this.agentId } : {}), ...(parsed.data.eventId ? { eventId: parsed.data.eventId } : {}) },
      signal,
    );
    const durationMs = Math.round(performance.now() - started);
    if (!called.ok) {
      const refusal = errorBodyOf(called.error.message);
      return { ...answer({ ok: false, code: refusal?.code ?? called.error.code, message: refusal?.message ?? called.error.message }), durationMs };
    }
    const tried = JSON.parse(called.content) as { runId: string; agentId: string; eventId: string | null };
    this.agentId = tried.agentId;
    return { ...answer({ ok: true, runId: tried.runId, agentId: tried.agentId, eventId: tried.eventId, note: 'the try runs in shadow; the person watches its result on the page' }), durationMs };
  }
}

/** The platform's error (`{error: {code, message}}`, the REST error body) in a failed call's text, when it is one. */
function errorBodyOf(text: string): { code: string; message: string } | null {
  try {
    const { error } = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    return typeof error?.code === 'string' && typeof error.message === 'string' ? { code: error.code, message: error.message } : null;
  } catch {
    return null;
  }
}

/** A crafting turn's message: the person's words, then the canvas as JSON (the model grounds on it; hand edits included). */
export function craftTurnInput(origin: CraftOrigin): string {
  return `${origin.message}\n\n--- the canvas now:\n${JSON.stringify(origin.canvas)}`;
}
