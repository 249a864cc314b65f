import { fromModelToolName, matchesToolGlob, MODEL_TOOL_NAME_PATTERN, qualifyToolName, toModelToolName } from '../src/tools';

describe('model tool names', () => {
  it('turns the server dot into __ when the result is a valid function name', () => {
    expect(toModelToolName(qualifyToolName('github', 'create_issue'))).toBe('github__create_issue');
    expect(toModelToolName('platform.list_events')).toBe('platform__list_events');
    expect(toModelToolName('my-server.Tool-2')).toBe('my-server__Tool-2');
  });

  it.each([
    'files.read.file',
    'files.read/file',
    'srv.tool with spaces',
    `long-server-name-for-tests.${'t'.repeat(80)}`,
    'srv.ünïcode',
  ])('keeps %s within the OpenAI rule, deterministically', (name) => {
    const modelName = toModelToolName(name);
    expect(modelName).toMatch(MODEL_TOOL_NAME_PATTERN);
    expect(toModelToolName(name)).toBe(modelName);
  });

  it('gives names that differ only in the cleaned characters different model names', () => {
    expect(toModelToolName('srv.a/b')).not.toBe(toModelToolName('srv.a:b'));
    const long = (suffix: string) => `server.${'x'.repeat(70)}${suffix}`;
    expect(toModelToolName(long('1'))).not.toBe(toModelToolName(long('2')));
  });

  it('maps a model name back to the tool among the known names', () => {
    const names = ['github.create_issue', 'files.read.file', `s.${'t'.repeat(80)}`];
    for (const name of names) expect(fromModelToolName(toModelToolName(name), names)).toBe(name);
    expect(fromModelToolName('made_up', names)).toBeUndefined();
  });
});

describe('tool globs', () => {
  const cases: Array<[string, string, boolean]> = [
    ['*', 'list_events', true],
    ['list_*', 'list_events', true],
    ['list_*', 'get_event', false],
    ['*_event', 'get_event', true],
    ['*_event', 'get_events', false],
    ['get_*t', 'get_event', true],
    ['list_events', 'list_events', true],
    ['list_events', 'list_events2', false],
    ['github.create_*', 'github.create_issue', true],
    ['a*b*c', 'aXbYc', true],
    ['a*b*c', 'aXbY', false],
    ['**', '', true],
    ['*a', 'bbb', false],
  ];
  it.each(cases)('%s vs %s → %s', (glob, name, expected) => {
    expect(matchesToolGlob(glob, name)).toBe(expected);
  });

  it('stays fast on adversarial globs', () => {
    const started = process.hrtime.bigint();
    expect(matchesToolGlob(`${'*a'.repeat(50)}b`, 'a'.repeat(200))).toBe(false);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(200);
  });
});
