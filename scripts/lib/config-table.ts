import { readdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import type { z } from 'zod';

/*
 * The configuration reference's table (docs/configuration.md), written from the services' zod env schemas
 * (names, defaults, which services read them) and the JSDoc of each schema
 * field (the meaning), so the operator's reference cannot drift from the code.
 */

/** One service's environment: its schema and the folders whose source declares its fields. */
export interface ServiceEnv {
  /** The service's name, as the table's "used by" column says it. */
  service: string;
  schema: z.ZodObject;
  /** Folders (relative to the repo root) searched for the JSDoc of the schema's fields, in order. */
  sources: readonly string[];
}

/** The page that holds the configuration table, from the repository's root. */
export const CONFIG_PAGE = 'docs/configuration.md';

/** The lines that enclose the generated table in the page. */
export const TABLE_START = '<!-- config-table:start (written by `npm run docs:config` from the env schemas: edit the JSDoc of a schema field, not this table) -->';
export const TABLE_END = '<!-- config-table:end -->';

/** The JSDoc of one field: its text and its `@defaultValue` tag, if any. */
interface FieldDoc {
  description: string;
  defaultTag?: string;
}

/** Every `.ts` file under a folder, tests excluded. */
function sourceFiles(root: string, folder: string): string[] {
  const absolute = path.join(root, folder);
  return readdirSync(absolute, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => path.join(absolute, file))
    .sort();
}

/** True for the object literal of `z.object({…})`, `z.strictObject({…})` or `….extend({…})`. */
function isSchemaShape(node: ts.ObjectLiteralExpression): boolean {
  const call = node.parent;
  if (!ts.isCallExpression(call) || !ts.isPropertyAccessExpression(call.expression)) return false;
  return ['object', 'strictObject', 'extend'].includes(call.expression.name.text);
}

/** The JSDoc of every env-variable field (SCREAMING_SNAKE) of every schema shape in the files. */
function fieldDocs(files: readonly string[]): Map<string, FieldDoc> {
  const docs = new Map<string, FieldDoc>();
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && /^[A-Z][A-Z0-9_]*$/.test(node.name.text)) {
        if (ts.isObjectLiteralExpression(node.parent) && isSchemaShape(node.parent) && !docs.has(node.name.text)) {
          const doc = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc).at(-1);
          if (doc) {
            const tag = doc.tags?.find((t) => t.tagName.text === 'defaultValue');
            docs.set(node.name.text, {
              description: oneLine(ts.getTextOfJSDocComment(doc.comment) ?? ''),
              defaultTag: tag ? oneLine(ts.getTextOfJSDocComment(tag.comment) ?? '') : undefined,
            });
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return docs;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A table cell: pipes escaped so they do not end the cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/**
 * The default as the table shows it. A plain value is computed from the schema
 * (so a changed default changes the table); a machine-derived one is shown by
 * what it is made of (`<host>-<pid>`); a list, a parsed value or none is the
 * field's `@defaultValue` tag, else `unset`/`empty`. A tag that names another
 * plain value than the schema's is an error: one of the two is stale.
 */
function defaultText(name: string, field: z.ZodType, doc: FieldDoc): string {
  const parsed = field.safeParse(undefined);
  if (!parsed.success) return 'required';
  const value: unknown = parsed.data;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    const shown = String(value).replaceAll(`${hostname()}-${process.pid}`, '<host>-<pid>');
    if (doc.defaultTag !== undefined && !shown.includes('<') && !doc.defaultTag.includes(shown)) {
      throw new Error(`${name}: its @defaultValue says ${doc.defaultTag}, its schema's default is ${shown}`);
    }
    return shown === '' ? 'empty' : `\`${shown}\``;
  }
  // A tag of `''` (an empty list or string) reads as the word.
  if (doc.defaultTag !== undefined && doc.defaultTag !== '') return doc.defaultTag.replace(/^''/, 'empty');
  if (Array.isArray(value)) return value.length === 0 ? 'empty' : `\`${value.join(',')}\``;
  return 'unset';
}

/** One cell for values that may differ by service: one value when they agree, else each with its services. */
function merged(values: ReadonlyArray<{ service: string; text: string }>): string {
  const distinct = [...new Set(values.map(({ text }) => text))];
  if (distinct.length === 1) return distinct[0]!;
  return distinct.map((text) => `${values.filter((v) => v.text === text).map((v) => v.service).join(', ')}: ${text}`).join(' ');
}

/**
 * The table's lines (header included): one row per variable, those every
 * service reads first, then each service's in schema order. Throws naming every
 * variable whose field has no JSDoc or a stale `@defaultValue`.
 */
export function configTable(root: string, envs: readonly ServiceEnv[]): string[] {
  const base = path.join(root, 'libs/config/src');
  const rows = new Map<string, Array<{ service: string; default: string; meaning: string }>>();
  const problems: string[] = [];
  for (const env of envs) {
    const docs = fieldDocs([...env.sources.flatMap((folder) => sourceFiles(root, folder)), ...sourceFiles(base, '.')]);
    for (const [name, field] of Object.entries(env.schema.shape)) {
      const doc = docs.get(name);
      if (!doc?.description) {
        problems.push(`${name} (${env.service}) has no description: give its schema field a JSDoc comment`);
        continue;
      }
      try {
        const row = rows.get(name) ?? [];
        row.push({ service: env.service, default: defaultText(name, field as z.ZodType, doc), meaning: doc.description });
        rows.set(name, row);
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
  }
  if (problems.length > 0) throw new Error(`the configuration table cannot be written:\n${[...new Set(problems)].join('\n')}`);
  const everyService = (name: string) => rows.get(name)!.length === envs.length;
  const names = [...rows.keys()];
  const ordered = [...names.filter(everyService), ...names.filter((name) => !everyService(name))];
  return [
    '| variable | default | used by | meaning |',
    '|---|---|---|---|',
    ...ordered.map((name) => {
      const row = rows.get(name)!;
      const usedBy = everyService(name) ? 'all' : row.map(({ service }) => service).join(', ');
      const defaults = merged(row.map((r) => ({ service: r.service, text: r.default })));
      const meaning = merged(row.map((r) => ({ service: r.service, text: r.meaning })));
      return `| \`${name}\` | ${cell(defaults)} | ${usedBy} | ${cell(meaning)} |`;
    }),
  ];
}

/** `page` with the text between the table's markers replaced by `table`; throws when a marker is missing. */
export function withConfigTable(page: string, table: readonly string[]): string {
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`${CONFIG_PAGE} has no ${TABLE_START} … ${TABLE_END} block`);
  return `${page.slice(0, start + TABLE_START.length)}\n${table.join('\n')}\n${page.slice(end)}`;
}
