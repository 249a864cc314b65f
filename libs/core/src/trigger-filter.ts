import {
  AppError,
  checkRegexSafety,
  ErrorCode,
  FILTER_MAX_DEPTH,
  MATCHES_INPUT_MAX_CHARS,
  REGEX_MAX_COST,
  type Fact,
  type FilterCondition,
  type FilterMissShape,
  type FilterValue,
  type TriggerFilter,
} from '@switchyard/contracts';
import { walkJson } from './json-path';

// Bound once: inside a vm context (jest's sandbox) every global lookup such as `Array` costs ~50× more
// than a module binding, and these run per array element.
const { isArray } = Array;
const { hasOwn } = Object;

/** A compiled trigger filter: whether one fact passes it. Pure and synchronous. */
export type FactPredicate = (fact: Fact) => boolean;

/** What a path resolves to in a fact; `undefined` means the path is missing. */
type Getter = (fact: Fact) => unknown;

/** The regex cost still available to the filter being compiled (they share REGEX_MAX_COST). */
interface RegexBudget {
  remaining: number;
}

/**
 * Compiles a filter that TriggerFilterSchema accepted into a predicate, once
 * per agent save; the predicate then runs per fact without re-reading the
 * filter. Semantics:
 *
 * - **Paths** resolve through own properties only. A segment of digits indexes
 *   an array (`payload.items.0.name`; `01` does not); any other segment on an
 *   array, or any segment on a scalar, is missing. An absent `actor` or
 *   `actor.name` is missing. `null` is a present value.
 * - **Missing paths** make every operator false except `exists: false`, `ne`
 *   and `nin` (and `not` around anything).
 * - **No coercion**: a type mismatch compares false. `gt/gte/lt/lte` compare
 *   two numbers, or two strings by UTF-16 code units, never one of each.
 * - `eq` is deep equality of JSON values (object key order ignored, array
 *   order significant); `ne` is exactly `!eq`, `nin` exactly `!in`, so a
 *   mismatched type makes `ne`/`nin` true.
 * - `in` is `eq` against any list item. `contains` is a substring test when
 *   the field and the value are strings, and `eq` against any element when the
 *   field is an array. `startsWith` needs two strings.
 * - `matches` runs the regex (compiled with the `u` flag, no `g`, so it keeps
 *   no state) on the first MATCHES_INPUT_MAX_CHARS UTF-16 code units of a string field.
 * - `all` needs every node, `any` at least one; both stop at the first decision.
 *
 * Evaluation is bounded: the tree is at most FILTER_MAX_DEPTH deep with at
 * most FILTER_MAX_NODES nodes, path walks take at most 10 steps, equality
 * recurses only as deep as the filter's value, and every regex passed
 * checkRegexSafety for the capped input length, all of a filter's regexes
 * together within REGEX_MAX_COST.
 *
 * @throws AppError VALIDATION_FAILED for a filter the schema would refuse
 *   (too deep, unknown path root, unsafe regex): a guard for callers that skipped parsing.
 */
export function compileFilter(filter: TriggerFilter): FactPredicate {
  return compileNode(filter, 1, { remaining: REGEX_MAX_COST });
}

/** Longest serialized value a FilterMiss quotes; a longer one is cut to a string of this many characters. */
export const FILTER_MISS_SEEN_MAX_CHARS = 500;

/** Why a fact fails a filter (the contract's FilterMissShape: the clause that decided, its place, what the fact held). */
export type FilterMiss = FilterMissShape;

/**
 * Explains why a fact fails a filter (null when it passes), for "why did my
 * agent not run?": the first failing node of an `all`, every branch of an
 * `any`, the node a `not` found holding. Evaluates exactly as compileFilter;
 * meant for one fact on request, not for the matcher's hot path.
 */
export function explainFilter(filter: TriggerFilter, fact: Fact): FilterMiss | null {
  return compileFilter(filter)(fact) ? null : explainNode(filter, fact, '');
}

function explainNode(node: TriggerFilter, fact: Fact, at: string): FilterMiss {
  const place = (key: string | number) => (at === '' ? String(key) : `${at}.${key}`);
  const holds = (child: TriggerFilter) => compileNode(child, 1, { remaining: REGEX_MAX_COST })(fact);
  if ('all' in node) {
    const index = node.all.findIndex((child) => !holds(child));
    return explainNode(node.all[index]!, fact, place(`all.${index}`));
  }
  if ('any' in node) return { at, clause: node, branches: node.any.map((child, i) => explainNode(child, fact, place(`any.${i}`))) };
  if ('not' in node) return { at, clause: node };
  const seen = compilePath(node.path)(fact);
  return seen === undefined ? { at, clause: node } : { at, clause: node, seen: quoted(seen) };
}

/** A value as a FilterMiss quotes it: itself, or its JSON cut to FILTER_MISS_SEEN_MAX_CHARS. */
function quoted(value: unknown): unknown {
  const json = JSON.stringify(value);
  return json.length <= FILTER_MISS_SEEN_MAX_CHARS ? value : `${json.slice(0, FILTER_MISS_SEEN_MAX_CHARS)}…`;
}

function compileNode(node: TriggerFilter, depth: number, budget: RegexBudget): FactPredicate {
  if (depth > FILTER_MAX_DEPTH) invalid(`filters nest at most ${FILTER_MAX_DEPTH} levels deep`);
  if ('all' in node) {
    const parts = node.all.map((child) => compileNode(child, depth + 1, budget));
    return (fact) => parts.every((part) => part(fact));
  }
  if ('any' in node) {
    const parts = node.any.map((child) => compileNode(child, depth + 1, budget));
    return (fact) => parts.some((part) => part(fact));
  }
  if ('not' in node) {
    const inner = compileNode(node.not, depth + 1, budget);
    return (fact) => !inner(fact);
  }
  return compileCondition(node, budget);
}

function compileCondition(condition: FilterCondition, budget: RegexBudget): FactPredicate {
  const get = compilePath(condition.path);
  switch (condition.op) {
    case 'eq':
    case 'ne': {
      const equals = equalTo(condition.value);
      const want = condition.op === 'eq';
      return (fact) => equals(get(fact)) === want;
    }
    case 'in':
    case 'nin': {
      const isMember = memberOf(condition.value);
      const want = condition.op === 'in';
      return (fact) => isMember(get(fact)) === want;
    }
    case 'gt':
      return compare(get, condition.value, (a, b) => a > b);
    case 'gte':
      return compare(get, condition.value, (a, b) => a >= b);
    case 'lt':
      return compare(get, condition.value, (a, b) => a < b);
    case 'lte':
      return compare(get, condition.value, (a, b) => a <= b);
    case 'exists': {
      const want = condition.value;
      return (fact) => (get(fact) !== undefined) === want;
    }
    case 'contains':
      return contains(get, condition.value);
    case 'startsWith': {
      const prefix = condition.value;
      return (fact) => {
        const v = get(fact);
        return typeof v === 'string' && v.startsWith(prefix);
      };
    }
    case 'matches':
      return matches(get, condition.value, condition.path, budget);
    default:
      return invalid(`unknown operator ${(condition as { op: unknown }).op as string}`);
  }
}

/** Resolves a validated path to a getter; payload segments are pre-split so evaluation does no parsing. */
function compilePath(path: string): Getter {
  const [root, field, ...rest] = path.split('.');
  if (root === 'kind' && field === undefined) return (fact) => fact.kind;
  if (root === 'subject' && (field === 'type' || field === 'id') && rest.length === 0) return (fact) => fact.subject[field];
  if (root === 'actor' && field === undefined) return (fact) => fact.actor;
  if (root === 'actor' && (field === 'type' || field === 'id' || field === 'name') && rest.length === 0) {
    return (fact) => fact.actor?.[field];
  }
  if (root === 'payload') {
    const steps = (field === undefined ? [] : [field, ...rest]).map((key) => ({
      key,
      index: /^(0|[1-9][0-9]*)$/.test(key) ? Number(key) : undefined,
    }));
    return (fact) => walkJson(fact.payload, steps);
  }
  return invalid(`path ${path} is not a fact path`);
}

/**
 * Deep JSON equality against a fixed value, compiled into a tree of closures
 * that mirrors the value (whose depth and size the schema bounds). Evaluation
 * walks the filter's value, never the fact's: a deep payload costs no more
 * than the value, and a wide object costs one key count, done last because
 * the per-key checks usually decide first.
 */
function equalTo(expected: FilterValue): (actual: unknown) => boolean {
  if (expected === null || typeof expected !== 'object') return (actual) => actual === expected;
  if (isArray(expected)) {
    const items = expected.map(equalTo);
    return (actual) =>
      isArray(actual) && actual.length === items.length && items.every((equals, i) => equals(actual[i]));
  }
  const entries = Object.entries(expected).map(([key, value]) => [key, equalTo(value)] as const);
  return (actual) =>
    isRecord(actual) &&
    entries.every(([key, equals]) => hasOwn(actual, key) && equals(actual[key])) &&
    !hasMoreOwnKeysThan(actual, entries.length);
}

/** Stops counting at `limit + 1`; V8 still lists the keys of a large object, so this is O(keys) at worst, bounded by the payload size. */
function hasMoreOwnKeysThan(obj: Record<string, unknown>, limit: number): boolean {
  let count = 0;
  for (const key in obj) {
    if (hasOwn(obj, key) && ++count > limit) return true;
  }
  return false;
}

/** `in`: a Set for the scalar items, deep equality for the others. */
function memberOf(list: FilterValue[]): (actual: unknown) => boolean {
  const scalars = new Set<unknown>(list.filter((item) => item === null || typeof item !== 'object'));
  const structured = list.filter((item) => item !== null && typeof item === 'object').map(equalTo);
  return (actual) => scalars.has(actual) || structured.some((equals) => equals(actual));
}

function compare(get: Getter, bound: number | string, holds: (a: number | string, b: number | string) => boolean): FactPredicate {
  const type = typeof bound;
  return (fact) => {
    const v = get(fact);
    return typeof v === type && holds(v as number | string, bound);
  };
}

function contains(get: Getter, value: FilterValue): FactPredicate {
  const equals = equalTo(value);
  return (fact) => {
    const v = get(fact);
    if (typeof v === 'string') return typeof value === 'string' && v.includes(value);
    return isArray(v) && v.some(equals);
  };
}

function matches(get: Getter, source: string, path: string, budget: RegexBudget): FactPredicate {
  const safety = checkRegexSafety(source);
  if (!safety.ok) invalid(`unsafe regex for ${path}: ${safety.reason}`);
  budget.remaining -= safety.cost;
  if (budget.remaining < 0) invalid(`the regexes of this filter together exceed the cost budget (at ${path})`);
  const re = new RegExp(source, 'u');
  return (fact) => {
    const v = get(fact);
    return typeof v === 'string' && re.test(v.length > MATCHES_INPUT_MAX_CHARS ? v.slice(0, MATCHES_INPUT_MAX_CHARS) : v);
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !isArray(v);
}

function invalid(message: string): never {
  throw new AppError(ErrorCode.VALIDATION_FAILED, message);
}
