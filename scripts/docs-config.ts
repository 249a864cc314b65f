/**
 * `npm run docs:config`: rewrites the configuration table of README.md from the
 * services' env schemas and the JSDoc of their fields. A test
 * (scripts/test/issue-14-config-table.test.ts) fails while the README's table
 * is not what this writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { configTable, withConfigTable } from './lib/config-table';
import { SERVICE_ENVS } from './lib/service-envs';

const root = path.resolve(__dirname, '..');
const readmePath = path.join(root, 'README.md');
const before = readFileSync(readmePath, 'utf8');
const after = withConfigTable(before, configTable(root, SERVICE_ENVS));
if (after === before) {
  console.log('README.md configuration table is current');
} else {
  writeFileSync(readmePath, after);
  console.log('README.md configuration table rewritten');
}
