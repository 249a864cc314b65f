import fc from 'fast-check';
import { checkStorableJson, unstorableIn } from '../src/storable-json';

describe('issue 13: checkStorableJson', () => {
  it('finds U+0000 and lone surrogates in values and keys, with their path', () => {
    const body = { events: [{ kind: 'a' }, { kind: 'b' }, { kind: 'c' }, { kind: 'd', payload: { note: 'x\u0000y' } }] };
    expect(checkStorableJson(body, 64)).toEqual({ ok: false, reason: 'unstorable_text', path: ['events', 3, 'payload', 'note'], found: 'U+0000' });
    expect(checkStorableJson({ a: ['ok', '\uD800'] }, 64)).toEqual({ ok: false, reason: 'unstorable_text', path: ['a', 1], found: 'lone surrogate' });
    expect(checkStorableJson({ a: { 'k\uDC00': 1 } }, 64)).toEqual({ ok: false, reason: 'unstorable_text', path: ['a', 'k\uDC00'], found: 'lone surrogate' });
    expect(checkStorableJson('\u0000', 64)).toMatchObject({ ok: false, path: [] });
  });

  it('accepts paired surrogates (emoji) and every other character', () => {
    expect(checkStorableJson({ note: '😀 \uD83D\uDE00 é \u0001 \uFFFF' }, 64)).toEqual({ ok: true });
    expect(unstorableIn('\uDBFF\uDFFF')).toBeUndefined();
  });

  it('bounds the depth without recursion, even 100,000 levels deep', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
    expect(checkStorableJson(deep, 64)).toMatchObject({ ok: false, reason: 'too_deep' });
    const at = (levels: number) => JSON.parse('{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1)) as unknown;
    expect(checkStorableJson(at(64), 64)).toEqual({ ok: true });
    expect(checkStorableJson(at(65), 64)).toEqual({ ok: false, reason: 'too_deep', path: Array(64).fill('a') });
  });

  it('refuses exactly the strings PostgreSQL cannot store (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        // encodeURIComponent throws on a lone surrogate: an oracle independent of the check.
        const wellFormed = (() => {
          try {
            encodeURIComponent(text);
            return true;
          } catch {
            return false;
          }
        })();
        const storable = !text.includes('\u0000') && wellFormed;
        expect(unstorableIn(text) === undefined).toBe(storable);
      }),
      { numRuns: 2000 },
    );
  });
});
