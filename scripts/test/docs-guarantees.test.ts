import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The guarantees table of docs/architecture.md names each guarantee's test by
 * its file and its `it(...)` titles (issue 33): a renamed or deleted test
 * fails here instead of leaving the table pointing at nothing.
 */
const ROOT = path.resolve(__dirname, '../..');
const DOC = 'docs/architecture.md';

interface Guarantee {
  guarantee: string;
  tests: Array<{ file: string; titles: string[] }>;
}

/** The code spans of a table cell, in order (`a`, ``b `c` d``). */
function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/(`+)([\s\S]+?)\1/g)].map((match) => {
    const text = match[2]!;
    return text.startsWith(' ') && text.endsWith(' ') && text.trim() ? text.slice(1, -1) : text;
  });
}

/** Rows of the table under "## Guarantees": a span ending in `.test.ts` (or a file of a test suite) opens a file, the spans after it are its titles. */
export function guaranteesOf(markdown: string): Guarantee[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith('## Guarantees'));
  if (start < 0) throw new Error(`${DOC} has no guarantees section`);
  const rows = lines.slice(start).filter((line) => line.startsWith('|')).slice(2);
  return rows.map((row) => {
    const cells = row.split(/(?<!\\)\|/).slice(1, -1);
    const tests: Guarantee['tests'] = [];
    for (const span of codeSpans(cells.at(-1) ?? '')) {
      if (/^[\w./-]+\.(test\.ts|ts)$/.test(span)) tests.push({ file: span, titles: [] });
      else tests.at(-1)?.titles.push(span);
    }
    return { guarantee: cells[0]!.trim(), tests };
  });
}

/** Whether `source` declares a test (`it`, `test`, with a modifier) titled exactly `title`. */
export function declaresTest(source: string, title: string): boolean {
  for (const quote of ["'", '"', '`']) {
    const written = quote === '`' ? title : title.replaceAll('\\', '\\\\').replaceAll(quote, `\\${quote}`);
    if (new RegExp(String.raw`\b(?:it|test)(?:\.\w+)?\(\s*` + escape(quote + written + quote)).test(source)) return true;
  }
  return false;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe(`the guarantees table of ${DOC}`, () => {
  const guarantees = guaranteesOf(readFileSync(path.join(ROOT, DOC), 'utf8'));

  it('reads files and titles from a row', () => {
    const [row] = guaranteesOf('## Guarantees\n\n| g | t |\n|---|---|\n| one | `a/b.test.ts`: `first`, ``has `code` in it``; `c/d.test.ts`: `second` |\n');
    expect(row).toEqual({ guarantee: 'one', tests: [{ file: 'a/b.test.ts', titles: ['first', 'has `code` in it'] }, { file: 'c/d.test.ts', titles: ['second'] }] });
    expect(declaresTest("it('it\\'s here', async () => {})", "it's here")).toBe(true);
    expect(declaresTest('  it(`${N} runs`, () => {})', '${N} runs')).toBe(true);
    expect(declaresTest("describe('not a test', () => {})", 'not a test')).toBe(false);
  });

  it('names at least one test title in an existing file for every guarantee', () => {
    expect(guarantees.length).toBeGreaterThan(40);
    expect(guarantees.filter((row) => row.tests.length === 0 || row.tests.some((test) => test.titles.length === 0)).map((row) => row.guarantee)).toEqual([]);
    expect(guarantees.flatMap((row) => row.tests.filter((test) => !existsSync(path.join(ROOT, test.file))).map((test) => test.file))).toEqual([]);
  });

  it('finds every named title as a test of its file', () => {
    const missing = guarantees.flatMap((row) =>
      row.tests.flatMap((test) => {
        const source = readFileSync(path.join(ROOT, test.file), 'utf8');
        return test.titles.filter((title) => !declaresTest(source, title)).map((title) => `${test.file}: ${title}`);
      }),
    );
    expect(missing).toEqual([]);
  });
});
