import type { JsonDiffOperation } from './json-diff';

/** Why a patch could not be applied: the operation's index and path. */
export interface JsonPatchFailure {
  ok: false;
  /** The index of the operation that failed. */
  index: number;
  path: string;
  reason: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A JSON Pointer's tokens (RFC 6901), unescaped; the empty pointer is the whole document. */
function tokensOf(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** An array index token: digits without a leading zero, or `-` (the end) where allowed. */
function arrayIndex(token: string, length: number, allowEnd: boolean): number | undefined {
  if (allowEnd && token === '-') return length;
  if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
  const index = Number(token);
  return index < length || (allowEnd && index === length) ? index : undefined;
}

/**
 * Applies a JSON Patch (RFC 6902) of `add`, `replace` and `remove` to a copy of
 * `document`, all or nothing: the first operation whose path (or, for `add`,
 * whose parent) is not in the document fails the patch, and `document` is never
 * changed. Only own members are followed, so `__proto__` names a plain key.
 */
export function applyJsonPatch(document: unknown, patch: readonly JsonDiffOperation[]): { ok: true; value: unknown } | JsonPatchFailure {
  let root: unknown = structuredClone(document);
  for (const [index, operation] of patch.entries()) {
    const fail = (reason: string): JsonPatchFailure => ({ ok: false, index, path: operation.path, reason });
    const tokens = tokensOf(operation.path);
    if (tokens.length === 0) {
      if (operation.op === 'remove') return fail('the whole document cannot be removed');
      root = structuredClone(operation.value);
      continue;
    }
    let parent: unknown = root;
    for (const token of tokens.slice(0, -1)) {
      if (Array.isArray(parent)) {
        const at = arrayIndex(token, parent.length, false);
        if (at === undefined) return fail(`no element ${token} in the array on the way`);
        parent = parent[at];
      } else if (isObject(parent) && Object.hasOwn(parent, token)) parent = parent[token];
      else return fail(`no member ${token} on the way`);
    }
    const last = tokens[tokens.length - 1]!;
    if (Array.isArray(parent)) {
      const at = arrayIndex(last, parent.length, operation.op === 'add');
      if (at === undefined) return fail(`no element ${last} in the array`);
      if (operation.op === 'add') parent.splice(at, 0, structuredClone(operation.value));
      else if (operation.op === 'replace') parent[at] = structuredClone(operation.value);
      else parent.splice(at, 1);
    } else if (isObject(parent)) {
      const present = Object.hasOwn(parent, last);
      if (operation.op !== 'add' && !present) return fail(`no member ${last} to ${operation.op}`);
      if (operation.op === 'remove') delete parent[last];
      else Object.defineProperty(parent, last, { value: structuredClone(operation.value), enumerable: true, writable: true, configurable: true });
    } else {
      return fail('the parent is not an object or an array');
    }
  }
  return { ok: true, value: root };
}
