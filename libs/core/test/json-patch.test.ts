import { applyJsonPatch } from '../src/json-patch';

describe('applyJsonPatch (RFC 6902 add, replace, remove; decision 0056)', () => {
  const doc = { name: 'a', triggers: [{ kind: 'x' }], 'a/b': { '~': 1 } };

  it('adds, replaces and removes members and elements, leaving the document as it was', () => {
    const applied = applyJsonPatch(doc, [
      { op: 'add', path: '/triggers/0/filter', value: { path: 'payload.n', op: 'gt', value: 2 } },
      { op: 'add', path: '/triggers/-', value: { kind: 'y' } },
      { op: 'add', path: '/triggers/0', value: { kind: 'w' } },
      { op: 'replace', path: '/name', value: 'b' },
      { op: 'remove', path: '/a~1b/~0' },
    ]);
    expect(applied).toEqual({ ok: true, value: { name: 'b', triggers: [{ kind: 'w' }, { kind: 'x', filter: { path: 'payload.n', op: 'gt', value: 2 } }, { kind: 'y' }], 'a/b': {} } });
    expect(doc).toEqual({ name: 'a', triggers: [{ kind: 'x' }], 'a/b': { '~': 1 } });
  });

  it('replaces the whole document at the empty pointer', () => {
    expect(applyJsonPatch(doc, [{ op: 'replace', path: '', value: { name: 'z' } }])).toEqual({ ok: true, value: { name: 'z' } });
  });

  it.each([
    [{ op: 'replace', path: '/missing', value: 1 }, 'no member missing to replace'],
    [{ op: 'remove', path: '/triggers/1' }, 'no element 1 in the array'],
    [{ op: 'add', path: '/triggers/01', value: 1 }, 'no element 01 in the array'],
    [{ op: 'add', path: '/nope/deeper', value: 1 }, 'no member nope on the way'],
    [{ op: 'add', path: '/name/x', value: 1 }, 'the parent is not an object or an array'],
    [{ op: 'remove', path: '' }, 'the whole document cannot be removed'],
  ] as const)('refuses %j, all or nothing', (operation, reason) => {
    const applied = applyJsonPatch(doc, [{ op: 'replace', path: '/name', value: 'changed' }, operation]);
    expect(applied).toEqual({ ok: false, index: 1, path: operation.path, reason });
  });

  it('treats __proto__ as a plain key', () => {
    const applied = applyJsonPatch({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]);
    expect(applied.ok && Object.keys(applied.value as object)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
