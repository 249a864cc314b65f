import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  AGENT_SPEC_SCHEMA_VERSION,
  AgentSpecSchema,
  AgentVersionParamSchema,
  IfMatchSchema,
  SUPPORTED_AGENT_SPEC_SCHEMA_VERSIONS,
} from '../src/index';

/** Why this exists: the spec is a persisted JSON column, so every stored shape must keep parsing. */
const historical = (version: number) =>
  JSON.parse(readFileSync(path.join(__dirname, 'fixtures/agent-spec/historical', `v${version}.json`), 'utf8')) as unknown;

const minimal = {
  name: 'triage',
  instructions: 'You triage.',
  model: { provider: 'openai', name: 'gpt-4.1-mini' },
  triggers: [{ kind: 'scorecard.*' }],
};

const issuePaths = (value: unknown) => {
  const result = AgentSpecSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
};

describe('AgentSpecSchema', () => {
  it.each(SUPPORTED_AGENT_SPEC_SCHEMA_VERSIONS.map((v) => [v]))('parses the stored spec of schema version %i with everything it stored kept', (version) => {
    const stored = historical(version);
    // Fields added since (rules.ask, approvals) take their defaults; nothing stored changes.
    expect(AgentSpecSchema.parse(stored)).toMatchObject(stored as object);
    expect(AgentSpecSchema.parse(stored)).toMatchObject({ rules: { ask: [] }, approvals: { timeoutMs: 604_800_000, afterPlan: 'default' } });
  });

  it('is at the newest supported schema version', () => {
    expect(SUPPORTED_AGENT_SPEC_SCHEMA_VERSIONS.at(-1)).toBe(AGENT_SPEC_SCHEMA_VERSION);
  });

  it('fills the defaults the issue names', () => {
    const spec = AgentSpecSchema.parse(minimal);
    expect(spec).toMatchObject({ description: '', task: '', permissionMode: 'default', allowSelfCause: false });
    expect(spec.flow).toEqual({ concurrency: 1, cooldownMs: 0, queueCap: 100, debounceMs: 0, priority: 0 });
    expect(spec.tools).toEqual({ mcpServers: [], platform: [] });
    expect(spec.rules).toEqual({ allow: [], deny: [], ask: [] });
    expect(spec.approvals).toEqual({ timeoutMs: 7 * 24 * 3_600_000, afterPlan: 'default' });
    expect(spec.budget).toEqual({ perRunUsd: 1, perDayUsd: 20, maxTurns: 25 });
    expect(spec.enabled).toBeUndefined();
  });

  it.each([
    ['an unknown field', { ...minimal, colour: 'red' }, ''],
    ['a bad name', { ...minimal, name: 'Triage Bot' }, 'name'],
    ['no triggers', { ...minimal, triggers: [] }, 'triggers'],
    ['21 triggers', { ...minimal, triggers: Array.from({ length: 21 }, () => ({ kind: 'a.b' })) }, 'triggers'],
    ['a scripted model without a script', { ...minimal, model: { provider: 'scripted', name: 'demo' } }, 'script'],
    ['51 script steps', { ...minimal, script: Array.from({ length: 51 }, () => ({ say: 'x' })) }, 'script'],
    ['an empty script step', { ...minimal, script: [{}] }, 'script.0'],
    ['arguments without a tool', { ...minimal, script: [{ say: 'x', arguments: { a: 1 } }] }, 'script.0.arguments'],
    ['a stdio server with a url', { ...minimal, tools: { mcpServers: [{ name: 'gh', transport: 'stdio', command: 'gh', url: 'http://x' }] } }, 'tools.mcpServers.0'],
    ['an http server with a bad url', { ...minimal, tools: { mcpServers: [{ name: 'gh', transport: 'http', url: 'ftp://x' }] } }, 'tools.mcpServers.0.url'],
    ['a header value with a line break', { ...minimal, tools: { mcpServers: [{ name: 'gh', transport: 'http', url: 'https://x', headers: { a: 'b\r\nc: d' } }] } }, 'tools.mcpServers.0.headers.a'],
    ['two servers with one name', { ...minimal, tools: { mcpServers: [{ name: 'gh', transport: 'stdio', command: 'a' }, { name: 'gh', transport: 'stdio', command: 'b' }] } }, 'tools.mcpServers.1.name'],
    ['a per-run budget over the daily one', { ...minimal, budget: { perRunUsd: 5, perDayUsd: 2 } }, 'budget.perRunUsd'],
    ['concurrency 0', { ...minimal, flow: { concurrency: 0 } }, 'flow.concurrency'],
    ['a throttle without a period', { ...minimal, flow: { throttle: { limit: 3 } } }, 'flow.throttle.periodMs'],
    ['an unknown permission mode', { ...minimal, permissionMode: 'yolo' }, 'permissionMode'],
    ['a spec over 256 KiB', { ...minimal, tools: { platform: Array.from({ length: 100 }, () => 'x'.repeat(200)) }, description: 'x'.repeat(2000), instructions: 'x'.repeat(32_000), task: 'x'.repeat(32_000), script: Array.from({ length: 50 }, () => ({ say: 'x'.repeat(8000) })) }, ''],
  ])('refuses %s, naming the path', (_name, value, path) => {
    expect(issuePaths(value)).toContain(path);
  });
});

describe('IfMatchSchema', () => {
  it.each([
    ['3', 3],
    ['"3"', 3],
    ['W/"12"', 12],
    [' "4" ', 4],
    ['*', undefined],
  ])('reads %s', (header, version) => {
    expect(IfMatchSchema.parse(header)).toBe(version);
  });

  it.each(['', '0', '"0"', 'v3', '"3", "4"', '3.0', '"3', '99999999999'])('refuses %s', (header) => {
    expect(IfMatchSchema.safeParse(header).success).toBe(false);
  });
});

describe('AgentVersionParamSchema', () => {
  it('reads plain positive integers only', () => {
    expect(AgentVersionParamSchema.parse('7')).toBe(7);
    for (const bad of ['0', '07', '-1', '1.5', '1e3', 'x', '2147483648']) expect(AgentVersionParamSchema.safeParse(bad).success).toBe(false);
  });
});
