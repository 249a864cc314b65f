import { SHADOW_RESULT_TEXT } from '@switchyard/contracts';
import type { ToolCallResult, ToolDefinition, ToolHost } from './tool-host';

/**
 * Whether a shadow run may execute a tool for real: only the platform's own
 * read-only tools, the ones the platform can attest change nothing. An
 * external server's tool never runs, whatever its annotations say.
 */
export function runsLiveInShadow(tool: ToolDefinition): boolean {
  return tool.trusted && tool.readOnly;
}

/**
 * The tool host of a shadow run (a try-drive, decision 0027), around the
 * run's real one: the platform's reads are called; every other call is not
 * sent anywhere and is answered with SHADOW_RESULT_TEXT, marked `wouldHave`
 * so the loop records it as what the agent would have done. The decision is
 * taken here, at the point of invocation, not by the permission policy.
 */
export class ShadowToolHost implements ToolHost {
  private readonly byName: Map<string, ToolDefinition>;

  constructor(private readonly inner: ToolHost) {
    this.byName = new Map(inner.tools().map((tool) => [tool.name, tool]));
  }

  tools(): ToolDefinition[] {
    return this.inner.tools();
  }

  async call(name: string, args: unknown, signal: AbortSignal): Promise<ToolCallResult> {
    const tool = this.byName.get(name);
    // An unknown name goes to the real host, which answers tool_unknown without calling anything.
    if (!tool || runsLiveInShadow(tool)) return this.inner.call(name, args, signal);
    return { ok: true, content: SHADOW_RESULT_TEXT, durationMs: 0, wouldHave: true };
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
