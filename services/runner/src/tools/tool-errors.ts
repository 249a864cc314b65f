import { TOOL_ERROR_CODES } from '@switchyard/contracts';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ToolErrorCode } from './tool-host';

/** Longest error message kept (transcripts, notices): enough to act on, not a dump. */
const MAX_MESSAGE_CHARS = 500;

/**
 * An error's message for a transcript: capped, and with every secret value
 * (resolved header secrets, the agent token) replaced — an HTTP error can
 * echo what was sent.
 */
export function describeError(error: unknown, secrets: readonly string[] = []): string {
  let message = isValidationError(error) ? describeIssues(error) : error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  if (cause && !message.includes(cause)) message = `${message}: ${cause}`;
  for (const secret of secrets) if (secret.length > 0) message = message.split(secret).join('[redacted]');
  return message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message;
}

/**
 * The code of a tools/call that threw. The SDK rejects with an McpError for
 * a timeout, a closed connection or the server's JSON-RPC error; with a zod
 * error when the result fails CallToolResultSchema; and with whatever the
 * transport threw (fetch failed, process gone) otherwise.
 */
export function callErrorCode(error: unknown, signal: AbortSignal): ToolErrorCode {
  if (signal.aborted) return TOOL_ERROR_CODES.cancelled;
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return TOOL_ERROR_CODES.timeout;
    if (error.code === ErrorCode.ConnectionClosed) return TOOL_ERROR_CODES.unavailable;
    // The client checks structured content against the tool's output schema itself.
    if (/structured content|output schema/i.test(error.message)) return TOOL_ERROR_CODES.resultInvalid;
    return TOOL_ERROR_CODES.failed;
  }
  if (isValidationError(error)) return TOOL_ERROR_CODES.resultInvalid;
  return TOOL_ERROR_CODES.unavailable;
}

function isValidationError(error: unknown): error is Error & { issues: Array<{ path?: unknown[]; message?: string }> } {
  return error instanceof Error && Array.isArray((error as { issues?: unknown }).issues);
}

/** `content: expected array, received string; …` rather than zod's JSON dump. */
function describeIssues(error: Error & { issues: Array<{ path?: unknown[]; message?: string }> }): string {
  const issues = error.issues.slice(0, 5).map((issue) => `${(issue.path ?? []).map(String).join('.') || '(result)'}: ${issue.message ?? 'invalid'}`);
  return `not a valid MCP tool result (${issues.join('; ')})`;
}
