import type { ToolClass } from '@switchyard/contracts';
import { classifyTool, repeatableTool } from '../src/loop/tool-classes';
import { offeredTools, toolVerdict, type ToolPolicy } from '../src/loop/tool-policy';
import type { ToolDefinition } from '../src/tools';
import { permissionTable } from './permission-table';

/**
 * Why this exists: docs/tool-classes.md is the permission table people read
 * to know what a mode asks about. This test reads that table and checks
 * every cell against the code, for several tools of each class, so the doc
 * and the policy cannot drift apart.
 */
const tool = (name: string, hints: Partial<Pick<ToolDefinition, 'readOnly' | 'destructive' | 'trusted'>>): ToolDefinition => ({
  name,
  modelName: name.replace('.', '__'),
  description: '',
  inputSchema: { type: 'object' },
  server: name.split('.')[0]!,
  readOnly: false,
  destructive: false,
  trusted: false,
  ...hints,
});

/** Operator's guarded globs used throughout (RUNNER_GUARDED_TOOLS). */
const GUARDED = ['web.wipe_*'];

/** Tools of each class, each one a different reason to have it. */
const TOOLS: Record<ToolClass, ToolDefinition[]> = {
  read: [tool('platform.list_runs', { trusted: true, readOnly: true, destructive: true }), tool('platform.get_event', { trusted: true, readOnly: true })],
  write: [tool('platform.emit_event', { trusted: true }), tool('web.echo', { readOnly: true }), tool('web.post_comment', {})],
  guarded: [
    tool('platform.decide_approval', { trusted: true }),
    tool('platform.put_settings', { trusted: true }),
    tool('platform.create_token', { trusted: true }),
    tool('platform.put_secret', { trusted: true }),
    tool('platform.delete_agent', { trusted: true }),
    tool('platform.stop_run', { trusted: true, destructive: true }),
    tool('web.delete_everything', { destructive: true }),
    tool('web.claims_read_only', { readOnly: true, destructive: true }),
    tool('platform.list_secrets', { trusted: true, readOnly: true, destructive: true }),
    tool('web.wipe_disk', {}),
    tool('platform.list_agents_guarded_by_operator', { trusted: true, readOnly: true }),
  ],
};

const said = (t: ToolDefinition, policy: ToolPolicy): string => {
  const verdict = toolVerdict(t, policy);
  return verdict.type === 'refuse' ? `refuse ${verdict.code}` : verdict.type;
};

describe('tool classes', () => {
  it.each(Object.entries(TOOLS).flatMap(([cls, tools]) => tools.map((t) => [t.name, cls] as const)))('%s is %s', (name, cls) => {
    const t = Object.values(TOOLS).flat().find((candidate) => candidate.name === name)!;
    const guarded = name === 'platform.list_agents_guarded_by_operator' ? [...GUARDED, 'platform.list_agents_guarded_*'] : GUARDED;
    const classified = classifyTool(t, guarded);
    expect(classified.class).toBe(cls);
    expect(classified.why).toContain(name);
  });

  it('never classes an external tool read, whatever it claims', () => {
    for (const hints of [{ readOnly: true }, { readOnly: true, destructive: true }, {}, { destructive: true }]) {
      expect(classifyTool(tool('web.anything', hints)).class).not.toBe('read');
    }
  });
});

describe('calls safe to repeat after a runner died during them (decision 0051)', () => {
  it('a read-only tool is repeated; a write, a guarded tool, or an external one that does not also say destructiveHint: false is not', () => {
    expect(repeatableTool(tool('platform.get_event', { trusted: true, readOnly: true }))).toBe(true);
    expect(repeatableTool(tool('platform.list_runs', { trusted: true, readOnly: true, destructive: true }))).toBe(true);
    expect(repeatableTool(tool('web.echo', { readOnly: true }))).toBe(true);
    expect(repeatableTool(tool('web.claims_read_only', { readOnly: true, destructive: true }))).toBe(false);
    expect(repeatableTool(tool('web.post_comment', {}))).toBe(false);
    expect(repeatableTool(tool('platform.emit_event', { trusted: true }))).toBe(false);
    expect(repeatableTool(tool('platform.list_secrets', { trusted: true, readOnly: true, destructive: true }))).toBe(false);
    expect(repeatableTool(tool('web.wipe_logs', { readOnly: true }), GUARDED)).toBe(false);
  });
});

describe('the permission table of docs/tool-classes.md', () => {
  const rows = permissionTable();

  it('covers every mode with every combination of rules it lists', () => {
    expect(rows).toHaveLength(24);
    expect(new Set(rows.map((row) => row.mode))).toEqual(new Set(['default', 'auto', 'bypass', 'plan']));
  });

  it.each(rows.map((row) => [row.mode, row.rules.join('+') || 'none', row] as const))('%s mode, rules %s: every class as the table says', (_mode, _rules, row) => {
    for (const cls of ['read', 'write', 'guarded'] as const) {
      for (const t of TOOLS[cls]) {
        const globs = (rule: string) => (row.rules.includes(rule) ? [t.name] : []);
        const policy: ToolPolicy = {
          permissionMode: row.mode,
          rules: { allow: globs('allow'), deny: globs('deny'), ask: globs('ask') },
          guardedGlobs: [...GUARDED, 'platform.list_agents_guarded_*'],
        };
        expect({ tool: t.name, verdict: said(t, policy) }).toEqual({ tool: t.name, verdict: row.cells[cls] });
      }
    }
  });

  it('only rules naming the tool apply; deny also keeps the tool from being offered', () => {
    const [read] = TOOLS.read;
    const [, write] = TOOLS.write;
    expect(said(write!, { permissionMode: 'bypass', rules: { allow: [], deny: [], ask: ['other.*'] } })).toBe('run');
    expect(said(read!, { permissionMode: 'default', rules: { allow: [], deny: ['web.*'], ask: [] } })).toBe('run');
    expect(offeredTools([read!, write!, ...TOOLS.guarded], { rules: { allow: [], deny: ['web.*', 'platform.*_secret*'], ask: [] } }).map((t) => t.name)).not.toContain('web.echo');
  });

  it('says why a call asks: the class and the mode, or the ask rule', () => {
    const verdict = toolVerdict(TOOLS.guarded[6]!, { permissionMode: 'auto', rules: { allow: [], deny: [], ask: [] } });
    expect(verdict).toEqual({ type: 'ask', class: 'guarded', why: 'web.delete_everything is an external tool not marked destructiveHint: false; auto mode asks about guarded tools' });
    expect(toolVerdict(TOOLS.read[0]!, { permissionMode: 'bypass', rules: { allow: ['*'], deny: [], ask: ['platform.*'] } })).toEqual({
      type: 'ask',
      class: 'read',
      why: 'a rules.ask glob of this agent names platform.list_runs',
    });
  });

  it("platform.save_agent always asks (decision 0058): in bypass, under an allow rule, in plan mode; only a deny rule refuses it", () => {
    const save = tool('platform.save_agent', { trusted: true });
    expect(classifyTool(save).class).toBe('guarded');
    for (const permissionMode of ['bypass', 'auto', 'default', 'plan'] as const) {
      expect(said(save, { permissionMode, rules: { allow: ['platform.*', '*'], deny: [], ask: [] } })).toBe('ask');
    }
    expect(said(save, { permissionMode: 'bypass', rules: { allow: [], deny: ['platform.save_agent'], ask: [] } })).toBe('refuse tool_denied');
    // An external server's tool of the same name is not the platform's: the usual rules apply.
    expect(said(tool('platform.save_agent', { destructive: false }), { permissionMode: 'bypass', rules: { allow: [], deny: [], ask: [] } })).toBe('run');
  });
});
