import type { z } from 'zod';

/** Deepest nesting of a filter: the root node is level 1, each `all`/`any`/`not` adds one. */
export const FILTER_MAX_DEPTH = 8;

/** Most nodes (conditions and combinators) in one filter. */
export const FILTER_MAX_NODES = 64;

/** Longest string anywhere in a condition value (and longest object key). */
export const FILTER_MAX_STRING_CHARS = 1_000;

/** Deepest nesting of arrays and objects inside one condition value. */
export const FILTER_MAX_VALUE_DEPTH = 8;

/** Most JSON nodes (scalars, arrays, objects) in one condition value. */
export const FILTER_MAX_VALUE_NODES = 1_000;

/** The operators of a condition `{path, op, value}`. */
export const FILTER_OPERATORS = [
  'eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'exists', 'contains', 'startsWith', 'matches',
] as const;

const NODE_KEYS = ['op', 'all', 'any', 'not'] as const;

type Location = Array<string | number>;
type Report = (path: Location, message: string) => void;

/**
 * Runs before the structural parse (as a zod preprocess) and checks what the
 * recursive schema cannot check safely: the nesting depth and node count, the
 * key that says what each node is, and the size of every value. Zod parses
 * recursive schemas recursively, so an unbounded input could overflow the
 * stack before a depth check ran; this walk uses an explicit stack, visits at
 * most FILTER_MAX_NODES nodes and stops at the first structural problem. It
 * does not copy or change the input.
 */
export function checkFilterBounds(input: unknown, ctx: z.core.$RefinementCtx): unknown {
  const report: Report = (path, message) => ctx.addIssue({ code: 'custom', message, path, input });
  const stack: Array<{ node: unknown; path: Location; depth: number }> = [{ node: input, path: [], depth: 1 }];
  let visited = 0;
  while (stack.length > 0) {
    const frame = stack.pop();
    if (frame === undefined) break;
    const { node, path, depth } = frame;
    visited++;
    if (depth > FILTER_MAX_DEPTH) {
      report(path, `filters nest at most ${FILTER_MAX_DEPTH} levels deep`);
      return input;
    }
    if (!isPlainObject(node)) {
      report(path, 'a filter node is an object: {path, op, value}, {all: [...]}, {any: [...]} or {not: {...}}');
      continue;
    }
    const keys = NODE_KEYS.filter((k) => Object.hasOwn(node, k));
    const [key] = keys;
    if (key === undefined || keys.length > 1) {
      report(path, 'a filter node has exactly one of the keys op, all, any and not');
      continue;
    }
    if (key === 'op') {
      checkCondition(node, path, report);
      continue;
    }
    const children = key === 'not' ? [node.not] : node[key];
    if (!Array.isArray(children) || children.length === 0) {
      report([...path, key], `${key} takes a non-empty list of filters`);
      continue;
    }
    if (visited + stack.length + children.length > FILTER_MAX_NODES) {
      report([...path, key], `a filter has at most ${FILTER_MAX_NODES} nodes`);
      return input;
    }
    // Pushed in reverse so that issues come out in document order.
    for (let i = children.length - 1; i >= 0; i--) {
      stack.push({ node: children[i], path: key === 'not' ? [...path, key] : [...path, key, i], depth: depth + 1 });
    }
  }
  return input;
}

function checkCondition(node: Record<string, unknown>, path: Location, report: Report): void {
  if (!(FILTER_OPERATORS as readonly unknown[]).includes(node.op)) {
    report([...path, 'op'], `op must be one of ${FILTER_OPERATORS.join(', ')}`);
  }
  if (Object.hasOwn(node, 'value')) checkValue(node.value, [...path, 'value'], report);
}

/** Bounded walk of one condition value: JSON types only, and the limits above. */
function checkValue(value: unknown, at: Location, report: Report): void {
  const stack: Array<{ v: unknown; path: Location; depth: number }> = [{ v: value, path: at, depth: 0 }];
  let seen = 0;
  while (stack.length > 0) {
    const frame = stack.pop();
    if (frame === undefined) break;
    const { v, path, depth } = frame;
    if (++seen > FILTER_MAX_VALUE_NODES) return report(at, `a value holds at most ${FILTER_MAX_VALUE_NODES} items in all`);
    if (depth > FILTER_MAX_VALUE_DEPTH) return report(path, `values nest at most ${FILTER_MAX_VALUE_DEPTH} levels deep`);
    if (typeof v === 'string') {
      if (v.length > FILTER_MAX_STRING_CHARS) return report(path, `strings are at most ${FILTER_MAX_STRING_CHARS} characters`);
    } else if (Array.isArray(v)) {
      if (seen + stack.length + v.length > FILTER_MAX_VALUE_NODES) {
        return report(path, `a value holds at most ${FILTER_MAX_VALUE_NODES} items in all`);
      }
      v.forEach((item, i) => stack.push({ v: item, path: [...path, i], depth: depth + 1 }));
    } else if (isPlainObject(v)) {
      const entries = Object.entries(v);
      if (seen + stack.length + entries.length > FILTER_MAX_VALUE_NODES) {
        return report(path, `a value holds at most ${FILTER_MAX_VALUE_NODES} items in all`);
      }
      for (const [k, item] of entries) {
        if (k.length > FILTER_MAX_STRING_CHARS) return report(path, `object keys are at most ${FILTER_MAX_STRING_CHARS} characters`);
        stack.push({ v: item, path: [...path, k], depth: depth + 1 });
      }
    } else if (!(v === null || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)))) {
      return report(path, 'values are JSON: null, booleans, finite numbers, strings, arrays and objects');
    }
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
