import type { JsonPath } from './storable-json';

/** An object or array being scanned: the keys seen so far, and where its current member sits. */
interface Container {
  keys: Set<string> | undefined;
  /** The key or index of the member being read, for the path of a duplicate. */
  at: string | number;
  /** Inside an object: the next string is a key. */
  expectKey: boolean;
}

/** Index of the quote that closes the string opening at `start` (a quote not escaped by an odd run of backslashes). */
function closingQuote(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1) {
    let slashes = 0;
    for (let i = end - 1; text.charCodeAt(i) === 0x5c; i--) slashes++;
    if (slashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return text.length;
}

/**
 * The first object key that appears twice in one object of `text`, with the
 * path of the object's second member of that name; undefined when there is
 * none. `JSON.parse` keeps the last of duplicates silently, and another
 * parser may keep the first: a signed body whose meaning depends on the parser
 * is refused instead. Keys compare after unescaping (`"a"` and `"\u0061"` are
 * one key). Meant for text `JSON.parse` accepted; iterative, so any nesting
 * depth is safe.
 */
export function duplicateKeyIn(text: string): { key: string; path: JsonPath } | undefined {
  const stack: Container[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === 0x22 /* " */) {
      const end = closingQuote(text, i);
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        top.at = key;
        top.expectKey = false;
        if (top.keys.has(key)) return { key, path: stack.map((container) => container.at) };
        top.keys.add(key);
      }
      i = end;
    } else if (c === 0x7b /* { */) stack.push({ keys: new Set(), at: '', expectKey: true });
    else if (c === 0x5b /* [ */) stack.push({ keys: undefined, at: 0, expectKey: false });
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) stack.pop();
    else if (c === 0x2c /* , */ && top) {
      if (top.keys) top.expectKey = true;
      else top.at = (top.at as number) + 1;
    }
  }
  return undefined;
}
