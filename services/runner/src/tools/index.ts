/** The runner's tools over MCP: what the agent loop imports. */
export { connectTools } from './mcp-tool-host';
export type { ConnectToolsOptions } from './mcp-tool-host';
export { McpHttpPool } from './mcp-http-pool';
export { fromModelToolName, matchesToolGlob, MODEL_TOOL_NAME_PATTERN, PLATFORM_SERVER, qualifyToolName, toModelToolName } from './tool-names';
export type { PlatformToolServer, ToolCallResult, ToolDefinition, ToolErrorCode, ToolHost, ToolServerNotice } from './tool-host';
export { runsLiveInShadow, ShadowToolHost } from './shadow-tool-host';
export { CRAFT_TOOLS, CRAFT_TRY_PLATFORM_TOOL, CraftToolHost, craftTurnInput, type CraftOrigin } from './craft-tool-host';
export { ToolListCache } from './tool-list-cache';
export { DEFAULT_TOOL_HOST_OPTIONS, toolHostOptions, ToolsEnvSchema } from './tools-config';
export type { ToolHostOptions, ToolsConfig } from './tools-config';
