import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode as McpErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AppError, ErrorCode, PLATFORM_TOOL_INPUT_SCHEMAS, type ErrorBody, type Role } from '@switchyard/contracts';
import type { Logger } from '@switchyard/logging';
import { z } from 'zod';
import { assertPerson } from '../commands/decide-approval';
import { assertInParentScope, inParentScope } from '../commands/parent-scope';
import { assertRole, hasRole } from '../http/auth';
import { statusOf } from '../http/errors';
import { isPlatformToolName, PLATFORM_TOOLS, type PlatformToolContext, type PlatformToolDeps } from './platform-tools';

/** The tools as `tools/list` shows them, with the role each needs: JSON Schemas generated from the contracts' zod schemas. */
const TOOL_LIST: Array<{ tool: Tool; role: Role; peopleOnly: boolean; craftingOnly: boolean }> = Object.values(PLATFORM_TOOLS).map((tool) => ({
  role: tool.role,
  peopleOnly: tool.peopleOnly ?? false,
  craftingOnly: tool.craftingOnly ?? false,
  tool: {
    name: tool.name,
    title: tool.annotations.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(PLATFORM_TOOL_INPUT_SCHEMAS[tool.name], { io: 'input', unrepresentable: 'any' }) as Tool['inputSchema'],
    annotations: tool.annotations,
  },
}));

/** A successful result: the value as JSON text, and as structured content for clients that read it. */
function okResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/** A tool error: the REST error body (stable code first) as JSON text, so a model and a program both read the code. */
function errorResult(error: AppError): CallToolResult {
  const body: ErrorBody = { error: { code: error.code, message: error.message } };
  if (error.data !== undefined && statusOf(error.code) < 500) body.error.details = error.data;
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body, isError: true };
}

/**
 * The platform's MCP server for one principal. It is built for one HTTP
 * request and dropped after it (stateless Streamable HTTP), so nothing of one
 * caller is ever reachable from another's. Uses the low-level `Server` rather
 * than `McpServer` so that invalid arguments come back as a tool error with
 * the stable code `VALIDATION_FAILED`, like the REST API.
 */
export function createPlatformMcpServer(deps: PlatformToolDeps, ctx: PlatformToolContext, log: Logger): Server {
  const server = new Server({ name: 'switchyard', version: '0.1.0' }, { capabilities: { tools: {} } });
  // Only what the caller's role may call: a tool it would be refused is not offered (calling it is still refused).
  // A try run's token lists its member's tools (so the model is offered what the agent would have); its calls stay read-only.
  const listedAs = { ...ctx.principal, role: ctx.principal.shadowOf ?? ctx.principal.role };
  const visible = TOOL_LIST.filter((entry) => hasRole(listedAs, entry.role) && !(entry.peopleOnly && ctx.principal.agent) && (!entry.craftingOnly || ctx.principal.crafting)).map(
    (entry) => entry.tool,
  );
  // A delegated run is offered only what every run it was delegated from may call (parentScope, decision 0059).
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await inParentScope(deps, ctx.principal, visible) }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name } = request.params;
    // An unknown tool is a protocol error (MCP spec), not a tool result.
    if (!isPlatformToolName(name)) throw new McpError(McpErrorCode.InvalidParams, `unknown tool: ${name}`);
    const tool = PLATFORM_TOOLS[name];
    try {
      // Whatever it sends, an agent token never calls a person's tool.
      if (tool.peopleOnly) assertPerson(ctx.principal);
      const parsed = PLATFORM_TOOL_INPUT_SCHEMAS[name].safeParse(request.params.arguments ?? {});
      if (!parsed.success) throw new AppError(ErrorCode.VALIDATION_FAILED, `invalid arguments for ${name}`, parsed.error.issues);
      assertRole(ctx.principal, tool.role);
      await assertInParentScope(deps, ctx.principal, name);
      return okResult(await tool.run(deps, { ...ctx, sent: request.params.arguments ?? {} }, parsed.data));
    } catch (error) {
      if (error instanceof AppError) return errorResult(error);
      log.error({ err: error, tool: name, correlationId: ctx.correlationId }, 'platform tool failed');
      return errorResult(new AppError(ErrorCode.INTERNAL, 'internal error'));
    }
  });
  return server;
}
