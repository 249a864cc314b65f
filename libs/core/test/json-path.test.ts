import fc from 'fast-check';
import { JsonPathSchema } from '@switchyard/contracts';
import { parseJsonPath, resolveJsonPath, walkJson } from '../src/json-path';

const github = {
  repository: { full_name: 'acme/api', owner: { login: 'acme' } },
  commits: [{ id: 'c1', 'weird key': { "it's": 'quoted' } }, { id: 'c2' }],
  'a.b': 1,
  n: null,
};

describe('issue 36: the JSONPath subset', () => {
  it('parses $, .name, [\'name\'] and [index] into steps', () => {
    expect(parseJsonPath('$')).toEqual([]);
    expect(parseJsonPath('$.repository.full_name')).toEqual([{ key: 'repository' }, { key: 'full_name' }]);
    expect(parseJsonPath("$.commits[1]['weird key']")).toEqual([{ key: 'commits' }, { index: 1 }, { key: 'weird key' }]);
    expect(parseJsonPath("$['it\\'s']['back\\\\slash']")).toEqual([{ key: "it's" }, { key: 'back\\slash' }]);
    expect(parseJsonPath("$['']")).toEqual([{ key: '' }]);
  });

  it('resolves against own members only: missing is undefined, null is a value', () => {
    expect(resolveJsonPath(github, '$.repository.full_name')).toBe('acme/api');
    expect(resolveJsonPath(github, '$.commits[0].id')).toBe('c1');
    expect(resolveJsonPath(github, "$.commits[0]['weird key']['it\\'s']")).toBe('quoted');
    expect(resolveJsonPath(github, "$['a.b']")).toBe(1);
    expect(resolveJsonPath(github, '$.n')).toBeNull();
    expect(resolveJsonPath(github, '$.commits[2]')).toBeUndefined();
    expect(resolveJsonPath(github, '$.repository[0]')).toBeUndefined();
    expect(resolveJsonPath(github, "$.commits['0']")).toBeUndefined();
    expect(resolveJsonPath(github, '$.repository.full_name.length')).toBeUndefined();
    expect(resolveJsonPath(github, '$.constructor')).toBeUndefined();
    expect(resolveJsonPath(github, "$['__proto__']")).toBeUndefined();
    expect(resolveJsonPath(github, '$.n.x')).toBeUndefined();
  });

  it.each([
    '',
    'repository.full_name',
    '$.',
    '$..name',
    '$.*',
    '$[*]',
    '$[-1]',
    '$[01]',
    '$[0:2]',
    '$["name"]',
    "$['unclosed]",
    "$['a'b']",
    "$['\\n']",
    "$['tab\there']",
    '$.1abc',
    '$.a-b',
    '$[?(@.a)]',
    ' $.a',
    '$.a ',
    '$[1234567890]',
    `$${'.a'.repeat(33)}`,
    `$.${'a'.repeat(300)}`,
  ])('refuses %j (outside the subset) with VALIDATION_FAILED', (path) => {
    expect(JsonPathSchema.safeParse(path).success).toBe(false);
    expect(() => parseJsonPath(path)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });

  it('round-trips any key through a quoted selector (property)', () => {
    // eslint-disable-next-line no-control-regex -- control characters are what a quoted name may not hold.
    const controls = /[\u0000-\u001f]/;
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ maxLength: 6 }).filter((k) => !controls.test(k)), fc.nat({ max: 99 })), { maxLength: 8 }), (steps) => {
        const path = '$' + steps.map((s) => (typeof s === 'number' ? `[${s}]` : `['${s.replace(/[\\']/g, (c) => `\\${c}`)}']`)).join('');
        expect(parseJsonPath(path)).toEqual(steps.map((s) => (typeof s === 'number' ? { index: s } : { key: s })));
      }),
    );
  });

  it('walks the trigger filters\' steps (key and index both) like before', () => {
    const payload = { items: [{ name: 'x' }], '0': 'zero' };
    expect(walkJson(payload, [{ key: 'items' }, { key: '0', index: 0 }, { key: 'name' }])).toBe('x');
    expect(walkJson(payload, [{ key: '0', index: 0 }])).toBe('zero');
    expect(walkJson([1, 2], [{ key: 'length' }])).toBeUndefined();
  });
});
