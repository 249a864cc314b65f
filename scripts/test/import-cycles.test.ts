import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * No module of a package imports itself back through its relative imports
 * (issue 33): a cycle makes load order matter and two files one unit. Type
 * imports count too — they are the usual start of one (StepOutcome,
 * OpenApiPaths and the team tools' types were). Put a shared type or
 * constant in a file of its own that both sides import.
 */
const ROOT = path.resolve(__dirname, '../..');
const IMPORT = /(?:import|export)\s+(?:type\s+)?[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/g;

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    // Prisma's generated client is not ours to shape.
    if (entry.name === 'node_modules' || entry.name === 'generated') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(full);
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield full;
  }
}

function resolve(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec.replace(/\.js$/, ''));
  return [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((file) => existsSync(file) && statSync(file).isFile());
}

/** Each cycle (a strongly connected group of more than one file, or a file importing itself), as sorted relative paths. */
export function importCycles(files: readonly string[], read: (file: string) => string): string[][] {
  const edges = new Map(files.map((file) => [file, [...read(file).matchAll(IMPORT)].map((m) => resolve(file, m[1]!)).filter((f): f is string => f !== undefined)]));
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) === index.get(file)) {
      const group: string[] = [];
      for (let member = stack.pop()!; ; member = stack.pop()!) {
        onStack.delete(member);
        group.push(member);
        if (member === file) break;
      }
      if (group.length > 1 || (edges.get(file) ?? []).includes(file)) cycles.push(group.map((f) => path.relative(ROOT, f)).sort());
    }
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return cycles;
}

describe('import cycles', () => {
  it('finds a cycle through a type import', () => {
    const a = path.join(ROOT, 'services/runner/src/loop/steps.ts');
    const b = path.join(ROOT, 'services/runner/src/loop/model-step.ts');
    const text: Record<string, string> = { [a]: "import { modelStep } from './model-step';", [b]: "import type { StepOutcome } from './steps';" };
    expect(importCycles([a, b], (file) => text[file]!)).toEqual([['services/runner/src/loop/model-step.ts', 'services/runner/src/loop/steps.ts']]);
  });

  it('none in the source of any service or lib', () => {
    const packages = ['services', 'libs'].flatMap((dir) => readdirSync(path.join(ROOT, dir)).map((name) => path.join(ROOT, dir, name, 'src')));
    const files = packages.filter((dir) => existsSync(dir)).flatMap((dir) => [...sources(dir)]);
    expect(importCycles(files, (file) => readFileSync(file, 'utf8'))).toEqual([]);
  });
});
