import { canonicalJson, changedTopLevelFields, jsonDiff, specHash, type JsonDiffOperation } from '../src/index';

/** Applies a patch of the three operations jsonDiff writes (RFC 6902 semantics), to check a diff turns one value into the other. */
function applyPatch(doc: unknown, patch: JsonDiffOperation[]): unknown {
  let root = structuredClone(doc);
  for (const op of patch) {
    const tokens = op.path === '' ? [] : op.path.slice(1).split('/').map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
    if (tokens.length === 0) {
      root = op.op === 'remove' ? undefined : structuredClone(op.value);
      continue;
    }
    let parent = root as Record<string, unknown> | unknown[];
    for (const t of tokens.slice(0, -1)) parent = (parent as Record<string, unknown>)[t] as Record<string, unknown>;
    const last = tokens.at(-1)!;
    if (Array.isArray(parent)) {
      const index = Number(last);
      if (op.op === 'add') parent.splice(index, 0, structuredClone(op.value));
      else if (op.op === 'remove') parent.splice(index, 1);
      else parent[index] = structuredClone(op.value);
    } else if (op.op === 'remove') delete parent[last];
    else parent[last] = structuredClone(op.value);
  }
  return root;
}

describe('canonical JSON and spec hashes (decision 0046)', () => {
  it('writes one text for the same JSON whatever the key order, leaving undefined keys out', () => {
    expect(canonicalJson({ b: 1, a: [{ y: 'é', x: null }], c: undefined })).toBe('{"a":[{"x":null,"y":"é"}],"b":1}');
    expect(canonicalJson({ a: [{ x: null, y: 'é' }], b: 1 })).toBe(canonicalJson({ b: 1, a: [{ y: 'é', x: null }] }));
    expect(canonicalJson([undefined, 1.5, 'a"b'])).toBe('[null,1.5,"a\\"b"]');
  });

  it('hashes as sha256 over the canonical text; any change of a value changes it', () => {
    const spec = { name: 'a', triggers: [{ kind: 'x.y' }] };
    expect(specHash(spec)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(specHash({ triggers: [{ kind: 'x.y' }], name: 'a' })).toBe(specHash(spec));
    expect(specHash({ ...spec, name: 'b' })).not.toBe(specHash(spec));
  });
});

describe('jsonDiff', () => {
  const cases: Array<[string, unknown, unknown]> = [
    ['equal', { a: 1 }, { a: 1 }],
    ['a changed field', { a: 1, b: { c: 'x' } }, { a: 1, b: { c: 'y' } }],
    ['added and removed keys', { a: 1, gone: true }, { a: 1, added: [1, 2] }],
    ['a longer array', { t: [{ k: 'a' }] }, { t: [{ k: 'a' }, { k: 'b' }, { k: 'c' }] }],
    ['a shorter array', { t: [1, 2, 3, 4] }, { t: [9] }],
    ['a type change', { a: [1] }, { a: { b: 1 } }],
    ['keys needing escapes', { 'a/b': 1, 'c~d': 2 }, { 'a/b': 2, 'c~d': 3 }],
    ['the root', 1, 'x'],
  ];
  it.each(cases)('patches %s so that applying it gives the target', (_name, from, to) => {
    const patch = jsonDiff(from, to);
    expect(applyPatch(from, patch)).toEqual(to);
    if (JSON.stringify(from) === JSON.stringify(to)) expect(patch).toEqual([]);
  });

  it('names the top-level fields that changed', () => {
    expect(changedTopLevelFields({ a: 1, b: [1], c: 'x' }, { a: 1, b: [2], d: true })).toEqual(['b', 'c', 'd']);
    expect(jsonDiff({ a: 1, b: { c: 'x' } }, { a: 1, b: { c: 'y' } })).toEqual([{ op: 'replace', path: '/b/c', value: 'y' }]);
  });
});
