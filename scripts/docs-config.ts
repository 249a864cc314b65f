/**
 * `npm run docs:config`: rewrites the configuration table of docs/configuration.md from the
 * services' env schemas and the JSDoc of their fields. A test
 * (scripts/test/issue-14-config-table.test.ts) fails while the page's table is not what this
 * writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_PAGE, configTable, withConfigTable } from './lib/config-table';
import { SERVICE_ENVS } from './lib/service-envs';

const root = path.resolve(__dirname, '..');
const pagePath = path.join(root, CONFIG_PAGE);
const before = readFileSync(pagePath, 'utf8');
const after = withConfigTable(before, configTable(root, SERVICE_ENVS));
if (after === before) {
  console.log(`${CONFIG_PAGE} configuration table is current`);
} else {
  writeFileSync(pagePath, after);
  console.log(`${CONFIG_PAGE} configuration table rewritten`);
}
