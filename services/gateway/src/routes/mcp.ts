import { Router } from 'express';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from '@switchyard/logging';
import { authenticateBearer, principalOf, type Authenticator } from '../http/auth';
import { rateLimit, type TokenRateLimiter } from '../http/rate-limit';
import { jsonBody } from '../http/json-body';
import { createPlatformMcpServer } from '../mcp/platform-mcp-server';
import type { PlatformToolDeps } from '../mcp/platform-tools';

/** What the `/mcp` endpoint needs. */
export interface McpRoutesDeps extends PlatformToolDeps {
  authenticator: Authenticator;
  rateLimiter: TokenRateLimiter;
  ratePerSecond: number;
  bodyLimitBytes: number;
  /** Host names (no port) a request's `Host` header may carry; anything else is 403 (DNS rebinding). */
  allowedHosts: readonly string[];
  log: Logger;
}

/**
 * The platform MCP server over Streamable HTTP, mounted at `/mcp`, in
 * stateless mode: every POST authenticates its bearer token (a person's API
 * token or a run's agent token) and gets a fresh server and transport that
 * are closed with the response. No session lives between requests, so a
 * revoked token stops at its next call, any replica can answer any call, and
 * no server or transport is ever shared between callers. The workspace is
 * the token's. GET (a server-to-client stream) and DELETE (ending a session)
 * are 405 like every method the OpenAPI document does not list for a path.
 * docs/decisions/0014-platform-mcp-and-agent-tokens.md.
 */
export function mcpRoutes(deps: McpRoutesDeps): Router {
  const router = Router();
  // Before authentication: a request that came through a rebound DNS name is refused unread.
  router.use(hostHeaderValidation([...deps.allowedHosts]));
  router.use(authenticateBearer(deps.authenticator));
  router.use(rateLimit(deps.rateLimiter, deps.ratePerSecond));

  router.post('/', ...jsonBody({ limitBytes: deps.bodyLimitBytes }), async (req, res) => {
    const ctx = { principal: principalOf(res), correlationId: String(res.locals.requestId) };
    const server = createPlatformMcpServer(deps, ctx, deps.log);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });

  return router;
}
