/**
 * Why this exists: the browser tests make agents driven by the scripted model
 * (no model server needed), each with its own trigger kind, script and pace;
 * this is that agent spec with the parts they share. `stepMs` is the pause
 * before each answer, so a run takes a known time.
 */
export function scripted(name: string, kind: string, script: unknown[], extra: Record<string, unknown> = {}, stepMs = 50) {
  return {
    name,
    instructions: 'Act on the fact.',
    model: { provider: 'scripted', name: 'script', params: { stepMs } },
    script,
    triggers: [{ kind }],
    ...extra,
  };
}

/**
 * The browser tests' agent that parks: it asks to call `web.echo` (a write of
 * the MCP test server at `mcpUrl`, so the default mode asks a person first),
 * then says it is done. Activated by `deploy.requested`.
 */
export function deployerSpec(mcpUrl: string) {
  return {
    name: 'deployer',
    instructions: 'Deploy what is asked.',
    model: { provider: 'scripted', name: 'script', params: { stepMs: 50 } },
    script: [{ say: 'deploying the release', tool: 'web.echo', arguments: { text: 'deploy 1.2.3' } }, { say: 'deployed' }],
    triggers: [{ kind: 'deploy.requested' }],
    tools: { mcpServers: [{ name: 'web', transport: 'http', url: mcpUrl }] },
  };
}
