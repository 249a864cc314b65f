import { TOOL_ERROR_CODES } from '@switchyard/contracts';
import { CallToolResultSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpConnection } from './mcp-connection';
import { deadline, untilAborted } from './deadline';
import { callErrorCode, describeError } from './tool-errors';
import type { ToolErrorCode } from './tool-host';
import { outputProblem } from './tool-output';
import { capText, renderToolContent } from './tool-result';
import type { ToolHostOptions } from './tools-config';

/** A call's outcome before its duration is added. */
export type CallOutcome = { ok: true; content: string } | { ok: false; error: { code: ToolErrorCode; message: string } };

/**
 * Grace after the call timeout before the runner stops waiting on its own:
 * the SDK's timeout fires first (and cancels the request on the server);
 * this bounds the call even if the transport never settles the request.
 */
const BACKSTOP_GRACE_MS = 1_000;

/**
 * Calls one tool on a connected server; `tool` is the listing's entry (the
 * session never listed: its output schema is checked here, tool-output.ts). The SDK's request timeout cancels
 * the request on the server (notifications/cancelled); the run's signal
 * cancels it too. The result — text or a tool error — is rendered and capped.
 */
export async function callMcpTool(
  connection: McpConnection,
  tool: Tool,
  args: Record<string, unknown>,
  signal: AbortSignal,
  options: Pick<ToolHostOptions, 'callTimeoutMs' | 'maxResultBytes'>,
): Promise<CallOutcome> {
  if (signal.aborted) return failure(TOOL_ERROR_CODES.cancelled, 'the run stopped before the call');
  if (!connection.isOpen()) return failure(TOOL_ERROR_CODES.unavailable, `the server ${connection.server} is no longer connected`);
  if (tool.execution?.taskSupport === 'required') return failure(TOOL_ERROR_CODES.failed, `the tool ${tool.name} requires task-based execution, which this runner does not do`);
  const bound = deadline(signal, options.callTimeoutMs + BACKSTOP_GRACE_MS);
  try {
    const request = connection.client.callTool({ name: tool.name, arguments: args }, CallToolResultSchema, {
      signal: bound.signal,
      timeout: options.callTimeoutMs,
      maxTotalTimeout: options.callTimeoutMs,
    });
    // With CallToolResultSchema the answer is a CallToolResult (the declared union also covers the pre-2024 `toolResult` shape).
    const result = (await untilAborted(request, bound.signal)) as CallToolResult;
    const problem = outputProblem(tool, result);
    if (problem) return failure(TOOL_ERROR_CODES.resultInvalid, problem);
    const content = capText(renderToolContent(result), options.maxResultBytes);
    return result.isError === true ? failure(TOOL_ERROR_CODES.failed, content) : { ok: true, content };
  } catch (error) {
    const code = bound.timedOut() ? TOOL_ERROR_CODES.timeout : callErrorCode(error, signal);
    if (code === TOOL_ERROR_CODES.timeout) return failure(code, `no answer within ${options.callTimeoutMs} ms`);
    if (code === TOOL_ERROR_CODES.cancelled) return failure(code, 'the run stopped during the call');
    return failure(code, describeError(error, connection.secrets));
  } finally {
    bound.dispose();
  }
}

function failure(code: ToolErrorCode, message: string): CallOutcome {
  return { ok: false, error: { code, message } };
}
