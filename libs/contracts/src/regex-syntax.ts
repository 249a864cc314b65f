/**
 * A small parser for the subset of `u`-mode JavaScript regular expressions
 * that trigger filters accept (see regex-safety.ts for the rules built on it).
 * It runs only on sources that `new RegExp(source, 'u')` already accepted, so
 * it does not re-implement syntax errors; any construct it does not model
 * (lookarounds, backreferences, modifiers) is reported as unsupported, which
 * the safety check turns into a rejection.
 */

/** Code point ranges `[from, to]` an atom can match; `null` when unknown (assume it overlaps everything). */
export type CharSet = ReadonlyArray<readonly [number, number]> | null;

/** One parsed element of a pattern. */
export type RegexNode =
  | { readonly kind: 'char'; readonly set: CharSet }
  | { readonly kind: 'assert'; readonly what: 'start' | 'end' | 'boundary' }
  | { readonly kind: 'group'; readonly alternatives: RegexNode[][] }
  | { readonly kind: 'repeat'; readonly body: RegexNode; readonly min: number; readonly max: number };

/** Thrown for a construct the safety rules refuse on sight (its message is user-facing). */
export class UnsupportedRegexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

const MAX_CODE_POINT = 0x10ffff;
const DIGIT: CharSet = [[0x30, 0x39]];
const WORD: CharSet = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
// ECMAScript WhiteSpace and LineTerminator code points, which `\s` matches.
const SPACE: CharSet = [
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a],
  [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
];
const LINE_TERMINATORS: CharSet = [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]];
const CLASS_ESCAPES: Record<string, CharSet> = {
  d: DIGIT,
  D: complementSet(DIGIT),
  w: WORD,
  W: complementSet(WORD),
  s: SPACE,
  S: complementSet(SPACE),
};
const CONTROL_ESCAPES: Record<string, number> = { t: 0x09, n: 0x0a, v: 0x0b, f: 0x0c, r: 0x0d };

/** Sorted, merged union of ranges; `null` if any part is unknown. */
export function unionSets(sets: readonly CharSet[]): CharSet {
  const all: Array<readonly [number, number]> = [];
  for (const set of sets) {
    if (set === null) return null;
    all.push(...set);
  }
  all.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [from, to] of all) {
    const last = merged[merged.length - 1];
    if (last !== undefined && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}

/** Every code point not in `set`; `null` stays unknown. */
export function complementSet(set: CharSet): CharSet {
  const merged = unionSets([set]);
  if (merged === null) return null;
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [from, to] of merged) {
    if (from > next) out.push([next, from - 1]);
    next = to + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

/** Whether two sets may share a character (unknown sets always may). */
export function setsOverlap(a: CharSet, b: CharSet): boolean {
  if (a === null || b === null) return true;
  return a.some(([aFrom, aTo]) => b.some(([bFrom, bTo]) => aFrom <= bTo && bFrom <= aTo));
}

/** Parses a source that `new RegExp(source, 'u')` accepts into a list of alternatives. */
export function parseRegex(source: string): RegexNode[][] {
  const parser = new Parser(source);
  const alternatives = parser.disjunction();
  if (!parser.done()) throw new UnsupportedRegexError('unexpected character in pattern');
  return alternatives;
}

class Parser {
  private pos = 0;

  constructor(private readonly src: string) {}

  done(): boolean {
    return this.pos >= this.src.length;
  }

  disjunction(): RegexNode[][] {
    const alternatives: RegexNode[][] = [this.alternative()];
    while (this.peek() === '|') {
      this.pos++;
      alternatives.push(this.alternative());
    }
    return alternatives;
  }

  private alternative(): RegexNode[] {
    const terms: RegexNode[] = [];
    while (!this.done() && this.peek() !== '|' && this.peek() !== ')') {
      const atom = this.atom();
      terms.push(this.quantifier(atom));
    }
    return terms;
  }

  private atom(): RegexNode {
    const ch = this.peek();
    if (ch === '^' || ch === '$') {
      this.pos++;
      return { kind: 'assert', what: ch === '^' ? 'start' : 'end' };
    }
    if (ch === '.') {
      this.pos++;
      return { kind: 'char', set: complementSet(LINE_TERMINATORS) };
    }
    if (ch === '(') return this.group();
    if (ch === '[') return { kind: 'char', set: this.charClass() };
    if (ch === '\\') return this.atomEscape();
    return { kind: 'char', set: this.literal() };
  }

  private group(): RegexNode {
    this.pos++;
    if (this.src.startsWith('?:', this.pos)) {
      this.pos += 2;
    } else if (/^\?<[=!]|^\?[=!]/.test(this.src.slice(this.pos, this.pos + 3))) {
      throw new UnsupportedRegexError('lookahead and lookbehind are not allowed');
    } else if (this.src.startsWith('?<', this.pos)) {
      const end = this.src.indexOf('>', this.pos);
      if (end < 0) throw new UnsupportedRegexError('unterminated group name');
      this.pos = end + 1;
    } else if (this.peek() === '?') {
      throw new UnsupportedRegexError('only (…), (?:…) and (?<name>…) groups are allowed');
    }
    const alternatives = this.disjunction();
    if (this.peek() !== ')') throw new UnsupportedRegexError('unterminated group');
    this.pos++;
    return { kind: 'group', alternatives };
  }

  private quantifier(atom: RegexNode): RegexNode {
    const ch = this.peek();
    let min: number;
    let max: number;
    if (ch === '*' || ch === '+' || ch === '?') {
      this.pos++;
      [min, max] = ch === '*' ? [0, Infinity] : ch === '+' ? [1, Infinity] : [0, 1];
    } else if (ch === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos));
      if (m === null) throw new UnsupportedRegexError('malformed {n,m} quantifier');
      this.pos += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    } else {
      return atom;
    }
    // A lazy quantifier backtracks over the same positions as a greedy one, in the other order.
    if (this.peek() === '?') this.pos++;
    return { kind: 'repeat', body: atom, min, max };
  }

  private atomEscape(): RegexNode {
    const next = this.src[this.pos + 1] ?? '';
    if (next === 'b' || next === 'B') {
      this.pos += 2;
      return { kind: 'assert', what: 'boundary' };
    }
    if (/[1-9]/.test(next) || next === 'k') throw new UnsupportedRegexError('backreferences are not allowed');
    return { kind: 'char', set: this.escape(false) };
  }

  /** A character escape or class escape, in or out of a class; `pos` is on the backslash. */
  private escape(inClass: boolean): CharSet {
    this.pos++;
    const ch = this.src[this.pos] ?? '';
    this.pos++;
    const classSet = CLASS_ESCAPES[ch];
    if (classSet !== undefined) return classSet;
    if (ch === 'p' || ch === 'P') {
      // Unicode property sets are not modelled: treat them as overlapping everything.
      const end = this.src.indexOf('}', this.pos);
      this.pos = end < 0 ? this.src.length : end + 1;
      return null;
    }
    if (ch in CONTROL_ESCAPES) return point(CONTROL_ESCAPES[ch] ?? 0);
    if (ch === 'b' && inClass) return point(0x08);
    if (ch === '0') return point(0);
    if (ch === 'c') return point((this.src.charCodeAt(this.pos++) || 0) % 32);
    if (ch === 'x') return this.hex(/^[0-9a-fA-F]{2}/);
    if (ch === 'u') return this.hex(/^\{([0-9a-fA-F]+)\}|^[0-9a-fA-F]{4}/);
    // Identity escapes in u-mode are syntax characters, `/` and (in a class) `-`.
    return point(ch.codePointAt(0) ?? 0);
  }

  private hex(pattern: RegExp): CharSet {
    const m = pattern.exec(this.src.slice(this.pos));
    if (m === null) throw new UnsupportedRegexError('malformed escape');
    this.pos += m[0].length;
    const code = parseInt(m[1] ?? m[0], 16);
    // A surrogate half from `\uXXXX\uXXXX` pairs is not modelled: unknown set.
    return code >= 0xd800 && code <= 0xdfff ? null : point(code);
  }

  private literal(): CharSet {
    const code = this.src.codePointAt(this.pos) ?? 0;
    this.pos += code > 0xffff ? 2 : 1;
    return point(code);
  }

  private charClass(): CharSet {
    this.pos++;
    const negated = this.peek() === '^';
    if (negated) this.pos++;
    const parts: CharSet[] = [];
    while (!this.done() && this.peek() !== ']') {
      const from = this.classAtom();
      if (this.peek() === '-' && this.src[this.pos + 1] !== ']' && this.pos + 1 < this.src.length) {
        this.pos++;
        const to = this.classAtom();
        parts.push(rangeOf(from, to));
      } else {
        parts.push(from);
      }
    }
    if (this.peek() !== ']') throw new UnsupportedRegexError('unterminated character class');
    this.pos++;
    const set = unionSets(parts);
    return negated ? complementSet(set) : set;
  }

  private classAtom(): CharSet {
    return this.peek() === '\\' ? this.escape(true) : this.literal();
  }

  private peek(): string | undefined {
    return this.src[this.pos];
  }
}

function point(code: number): CharSet {
  return [[code, code]];
}

/** `a-z` in a class: both ends are single characters in valid u-mode syntax. */
function rangeOf(from: CharSet, to: CharSet): CharSet {
  const lo = from?.[0]?.[0];
  const hi = to?.[0]?.[0];
  return lo === undefined || hi === undefined ? null : [[lo, hi]];
}
