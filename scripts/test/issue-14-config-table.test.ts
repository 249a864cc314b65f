import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_PAGE, configTable, TABLE_END, TABLE_START, withConfigTable } from '../lib/config-table';
import { SERVICE_ENVS } from '../lib/service-envs';
import { OtherProbeEnvSchema } from './fixtures/config-table/other/other-config';
import { ProbeEnvSchema, UndocumentedEnvSchema } from './fixtures/config-table/probe/probe-config';

/*
 * Issue 14: the configuration table (docs/configuration.md, once the README's) is written
 * from the services' env schemas (`npm run docs:config`), so a new variable, a changed default or a
 * reworded JSDoc fails here until the table is written again.
 */
const ROOT = path.resolve(__dirname, '../..');
const FIXTURES = 'scripts/test/fixtures/config-table/probe';
const OTHER_FIXTURES = 'scripts/test/fixtures/config-table/other';

/** The lines between the table's markers. */
function tableOf(page: string): string[] {
  return page.slice(page.indexOf(TABLE_START) + TABLE_START.length, page.indexOf(TABLE_END)).trim().split('\n');
}

describe('the configuration table of docs/configuration.md', () => {
  it('is what `npm run docs:config` writes from the env schemas', () => {
    const page = readFileSync(path.join(ROOT, CONFIG_PAGE), 'utf8');
    expect(page).toContain(TABLE_START);
    expect(tableOf(page)).toEqual(configTable(ROOT, SERVICE_ENVS));
  });

  it('has a row for every variable of every service’s env schema', () => {
    const table = configTable(ROOT, SERVICE_ENVS).join('\n');
    const missing = SERVICE_ENVS.flatMap(({ service, schema }) =>
      Object.keys(schema.shape)
        .filter((name) => !table.includes(`| \`${name}\` |`))
        .map((name) => `${name} (${service})`),
    );
    expect(missing).toEqual([]);
  });
});

describe('configTable', () => {
  const probe = { service: 'probe', schema: ProbeEnvSchema, sources: [FIXTURES] };
  const other = { service: 'other', schema: OtherProbeEnvSchema, sources: [OTHER_FIXTURES] };

  it('writes each variable once with its computed default, its services and its JSDoc; those of every service first', () => {
    const rows = configTable(ROOT, [probe, other]);
    expect(rows.slice(0, 3)).toEqual(['| variable | default | used by | meaning |', '|---|---|---|---|', expect.stringMatching(/^\| `REDIS_URL` \| `redis:\/\/127\.0\.0\.1:6379` \| all \| Redis/)]);
    expect(rows.slice(8)).toEqual([
      '| `PROBE_INTERVAL_MS` | probe: `250` other: `500` | all | probe: How often the probe looks. other: How long the other probe sleeps. |',
      '| `PROBE_SHARED` | `same` | all | Shared with the other probe, meant alike. |',
      '| `PROBE_NAMES` | empty (none) | probe | Names, comma-separated. |',
      '| `PROBE_TOKEN` | unset | other | Only the other probe reads it. |',
    ]);
  });

  it('shows a changed default as soon as the schema changes', () => {
    const changed = { ...probe, schema: ProbeEnvSchema.extend({ PROBE_SHARED: ProbeEnvSchema.shape.PROBE_SHARED.unwrap().default('changed') }) };
    expect(configTable(ROOT, [changed])).toContain('| `PROBE_SHARED` | `changed` | all | Shared with the other probe, meant alike. |');
  });

  it('refuses a field without JSDoc and a stale @defaultValue, naming each', () => {
    expect(() => configTable(ROOT, [{ service: 'bare', schema: UndocumentedEnvSchema, sources: [FIXTURES] }])).toThrow(
      /PROBE_BARE \(bare\) has no description[\s\S]*PROBE_STALE: its @defaultValue says 9, its schema's default is 10/,
    );
  });

  it('replaces only the text between the markers', () => {
    const readme = `# title\n\n${TABLE_START}\n| old |\n${TABLE_END}\n\nafter\n`;
    expect(withConfigTable(readme, ['| new |'])).toBe(`# title\n\n${TABLE_START}\n| new |\n${TABLE_END}\n\nafter\n`);
    expect(() => withConfigTable('# no markers', ['| new |'])).toThrow(/has no/);
  });
});
