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
