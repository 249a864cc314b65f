import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ToolClass } from '@switchyard/contracts';

/**
 * Why this exists: docs/tool-classes.md holds the permission table people
 * read; the unit test and the end-to-end test both check the platform
 * against that very table, so it is parsed here once.
 */
export interface PermissionRow {
  mode: 'default' | 'auto' | 'bypass' | 'plan';
  /** The rules naming the tool: [] (none), or some of allow, ask, deny. */
  rules: string[];
  /** Per class: `run`, `ask` or `refuse <code>`. */
  cells: Record<ToolClass, string>;
}

/** The rows of the doc's table, in its order. */
export function permissionTable(): PermissionRow[] {
  const doc = readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'tool-classes.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## The table'), doc.indexOf('## Plan mode'));
  return section
    .split('\n')
    .filter((line) => /^\| (default|auto|bypass|plan) \|/.test(line))
    .map((line) => {
      const [mode, rules, read, write, guarded] = line.split('|').slice(1, -1).map((cell) => cell.trim());
      return { mode: mode as PermissionRow['mode'], rules: rules === 'none' ? [] : rules!.split(', '), cells: { read: read!, write: write!, guarded: guarded! } };
    });
}

/** What the table says for a tool of `cls` in `mode` when exactly `rules` name it. */
export function tableSays(rows: readonly PermissionRow[], mode: PermissionRow['mode'], rules: readonly string[], cls: ToolClass): string {
  const key = [...rules].sort().join(',');
  const row = rows.find((candidate) => candidate.mode === mode && [...candidate.rules].sort().join(',') === key);
  if (!row) throw new Error(`docs/tool-classes.md has no row for ${mode} with rules ${key || 'none'}`);
  return row.cells[cls];
}
