import { type CharSet, parseRegex, type RegexNode, setsOverlap, unionSets, UnsupportedRegexError } from './regex-syntax';

/**
 * `matches` tests only the first this many UTF-16 code units of a string. The
 * cost bound below is computed for this length, so the two go together.
 */
export const MATCHES_INPUT_MAX_CHARS = 10_000;

/** Longest accepted regex source. */
export const REGEX_MAX_SOURCE_CHARS = 200;

/** Largest `n`/`m` accepted in `{n}`, `{n,}`, `{n,m}`. */
export const REGEX_MAX_REPEAT_BOUND = 1_000;

/**
 * Largest accepted worst-case cost (see checkRegexSafety) of one regex, and of
 * all the regexes of one filter together: 64 × the input cap, i.e. linear in
 * the tested input with a small constant (about 2 ms of V8 time for the
 * costliest accepted pattern against its worst input). Quadratic patterns are
 * refused because V8 needs ~0.2 s for `.*x` against 10,000 `a`s.
 */
export const REGEX_MAX_COST = 64 * MATCHES_INPUT_MAX_CHARS;

/** The verdict on a regex source: usable with its estimated cost, or why not (user-facing). */
export type RegexSafety = { ok: true; cost: number } | { ok: false; reason: string };

/** The reason given when a regex, or a filter's regexes together, exceed REGEX_MAX_COST. */
export const REGEX_TOO_COSTLY =
  'regex may backtrack too much: anchor it with ^, keep at most one ambiguous unbounded repetition, ' +
  'or bound repetitions (e.g. .{0,5}); the regexes of one filter share one budget';

const L = MATCHES_INPUT_MAX_CHARS;
// Costs saturate here, so that products of many factors stay finite and comparable.
const COST_CEILING = 1e15;

/**
 * Whether a `matches` source is safe to run with V8's backtracking engine
 * against untrusted input. The check is conservative (it refuses some safe
 * patterns) and structural, so it runs in time linear in the source:
 *
 * 1. It must compile with the `u` flag and be at most 200 characters.
 * 2. No backreferences (`\1`, `\k<x>`) and no lookarounds (`(?=`, `(?!`, `(?<=`, `(?<!`).
 * 3. A quantifier applies to one character (a literal, an escape, a class or
 *    `.`) or to a group of plain characters such as `(ab)+`: no nested
 *    quantifiers (`(a+)+`, `(.*a){20}`), no quantified alternation (`(a|b)*`,
 *    write `[ab]*`). Bounds are at most 1,000.
 * 4. Its worst-case cost over an input of 10,000 characters is at most
 *    64 × 10,000. The estimate counts backtracking paths: each repetition
 *    costs the number of paths that reach it times the characters it may scan
 *    (10,000 for `*`, `+`, `{n,}`); any other element costs one per path once
 *    there is more than one. A repetition multiplies the paths after it
 *    by its number of possible lengths (10,000 when unbounded), unless it is
 *    deterministic: the character after it cannot be one it repeats
 *    (`\d+\.`), or it is followed by `$` or ends the pattern. Alternatives add
 *    up. A pattern not anchored with `^` is retried from every start, which
 *    multiplies the whole by 10,000. In practice: unbounded repetition needs a
 *    pattern anchored with `^`, with at most one ambiguous unbounded
 *    repetition; otherwise bound it, e.g. `error.{0,5}timeout`. The `matches`
 *    conditions of one filter share this budget (the sum of their costs).
 */
export function checkRegexSafety(source: string): RegexSafety {
  if (source.length > REGEX_MAX_SOURCE_CHARS) {
    return { ok: false, reason: `regex is longer than ${REGEX_MAX_SOURCE_CHARS} characters` };
  }
  try {
    new RegExp(source, 'u');
  } catch (err) {
    return { ok: false, reason: `invalid regex: ${(err as Error).message}` };
  }
  try {
    const alternatives = parseRegex(source);
    checkStructure(alternatives);
    const anchored = alternatives.every((alt) => alt[0]?.kind === 'assert' && alt[0].what === 'start');
    const cost = saturate((anchored ? 1 : L) * disjunctionFlow(alternatives, 1, true).work);
    return cost > REGEX_MAX_COST ? { ok: false, reason: REGEX_TOO_COSTLY } : { ok: true, cost };
  } catch (err) {
    if (err instanceof UnsupportedRegexError) return { ok: false, reason: err.message };
    throw err;
  }
}

/** Rule 3: what a quantifier may apply to, and its bounds. */
function checkStructure(alternatives: RegexNode[][]): void {
  for (const node of alternatives.flat()) {
    if (node.kind === 'group') checkStructure(node.alternatives);
    if (node.kind !== 'repeat') continue;
    if (node.min > REGEX_MAX_REPEAT_BOUND || (node.max !== Infinity && node.max > REGEX_MAX_REPEAT_BOUND)) {
      throw new UnsupportedRegexError(`repetition bounds must be at most ${REGEX_MAX_REPEAT_BOUND}`);
    }
    const body = node.body;
    const plainGroup =
      body.kind === 'group' &&
      body.alternatives.length === 1 &&
      (body.alternatives[0] ?? []).length > 0 &&
      (body.alternatives[0] ?? []).every((n) => n.kind === 'char');
    if (body.kind !== 'char' && !plainGroup) {
      throw new UnsupportedRegexError(
        'a quantifier may only repeat one character or a group of plain characters (no nested quantifiers or alternation)',
      );
    }
  }
}

/** Work done and backtracking paths left after a part of the pattern, entered by `paths` paths. */
interface Flow {
  work: number;
  paths: number;
}

/** Alternatives are tried in turn: their work and their surviving paths add up. */
function disjunctionFlow(alternatives: RegexNode[][], paths: number, topLevel: boolean): Flow {
  let work = 0;
  let out = 0;
  for (const alternative of alternatives) {
    const flow = sequenceFlow(alternative, paths, topLevel);
    // Trying an alternative costs at least one step per path, even when it fails at once.
    work = saturate(work + Math.max(paths, flow.work));
    out = saturate(out + flow.paths);
  }
  return { work, paths: out };
}

/** Each element is visited once per path reaching it; an ambiguous repetition multiplies the paths after it. */
function sequenceFlow(sequence: RegexNode[], pathsIn: number, topLevel: boolean): Flow {
  let paths = pathsIn;
  let work = 0;
  sequence.forEach((node, i) => {
    if (node.kind === 'group') {
      const flow = disjunctionFlow(node.alternatives, paths, false);
      work = saturate(work + flow.work);
      paths = flow.paths;
    } else if (node.kind === 'repeat') {
      const scan = node.max === Infinity ? L : Math.min(L, node.max * groupLength(node.body));
      work = saturate(work + paths * Math.max(1, scan));
      if (node.min !== node.max && !isDeterministic(node, sequence[i + 1], topLevel)) {
        paths = saturate(paths * (node.max === Infinity ? L : node.max - node.min + 1));
      }
    } else if (paths > 1) {
      // With a single path V8 matches literals and classes in one pass; after a choice point each path re-checks them.
      work = saturate(work + paths);
    }
  });
  return { work, paths };
}

function saturate(n: number): number {
  return Math.min(n, COST_CEILING);
}

/**
 * A repetition is deterministic when only one of its possible end points lets
 * the match go on: the next element must start with a character the repeated
 * part cannot start with, or be the end of input, or (at top level) nothing.
 */
function isDeterministic(node: RegexNode & { kind: 'repeat' }, next: RegexNode | undefined, topLevel: boolean): boolean {
  if (next === undefined) return topLevel;
  if (next.kind === 'assert') return next.what === 'end';
  const repeated = firstSet(node.body);
  const following = firstSet(next);
  return repeated !== undefined && following !== undefined && !setsOverlap(repeated, following);
}

/** The characters a node's match must start with; `undefined` when it may match empty or is not modelled. */
function firstSet(node: RegexNode): CharSet | undefined {
  if (node.kind === 'char') return node.set;
  if (node.kind === 'repeat') return node.min >= 1 ? firstSet(node.body) : undefined;
  if (node.kind === 'assert') return undefined;
  const firsts = node.alternatives.map((alt) => (alt[0] === undefined ? undefined : firstSet(alt[0])));
  return firsts.every((s): s is CharSet => s !== undefined) ? unionSets(firsts) : undefined;
}

function groupLength(node: RegexNode): number {
  return node.kind === 'group' ? (node.alternatives[0] ?? []).length : 1;
}
