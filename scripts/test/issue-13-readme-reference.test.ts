import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  ListAgentsQuerySchema,
  ListAgentVersionsQuerySchema,
  ListEventsQuerySchema,
  ListRunsQuerySchema,
  MAX_AGENT_SPEC_BYTES,
  MAX_BATCH_SIZE,
  MAX_PAYLOAD_BYTES,
  TranscriptQuerySchema,
} from '@switchyard/contracts';
import type { z } from 'zod';
import { ApprovalsEnvSchema } from '../../services/approvals/src/config';
import { EventLogEnvSchema } from '../../services/event-log/src/config';
import { GatewayEnvSchema } from '../../services/gateway/src/config';
import { MatcherEnvSchema } from '../../services/matcher/src/config';
import { NotifierEnvSchema } from '../../services/notifier/src/config';
import { RunnerEnvSchema } from '../../services/runner/src/config';

/*
 * The README's configuration table is the operator's reference (issue 13: every health-port
 * variable in the README; issue 14: the table kept current). Every variable a service's zod
 * env schema reads has a row, and a row naming one variable shows its default as the schema
 * computes it, so a new variable or a changed default fails here until the README says so.
 * The limits table states the bounds the contracts enforce.
 */
const README = readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');
const SCHEMAS: Record<string, z.ZodObject> = {
  approvals: ApprovalsEnvSchema,
  'event-log': EventLogEnvSchema,
  gateway: GatewayEnvSchema,
  matcher: MatcherEnvSchema,
  notifier: NotifierEnvSchema,
  runner: RunnerEnvSchema,
};

/** The rows of the table under `## Configuration`: the variables each names, and its default cell. */
function configurationRows(): Array<{ variables: string[]; defaults: string }> {
  const section = README.split(/^## Configuration$/m)[1]!.split(/^## /m)[0]!;
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [names = '', defaults = ''] = line.split(/(?<!\\)\|/).slice(1).map((cell) => cell.trim());
      return { variables: [...names.matchAll(/`([A-Z][A-Z0-9_]*)(?:=[^`]*)?`/g)].map(([, name]) => name!), defaults };
    });
}

describe('README configuration table', () => {
  const rows = configurationRows();
  const documented = new Set(rows.flatMap(({ variables }) => variables));

  it('has a row for every variable of every service’s env schema', () => {
    const missing = Object.entries(SCHEMAS).flatMap(([service, schema]) =>
      Object.keys(schema.shape)
        .filter((name) => !documented.has(name))
        .map((name) => `${name} (${service})`),
    );
    expect(missing).toEqual([]);
  });

  it('shows the schema’s default in each row of one variable', () => {
    const wrong: string[] = [];
    for (const { variables, defaults } of rows) {
      if (variables.length !== 1) continue;
      const name = variables[0]!;
      const schema = Object.values(SCHEMAS).find((candidate) => name in candidate.shape);
      if (!schema) continue;
      const parsed = schema.shape[name]!.safeParse(undefined);
      const value = parsed.success ? parsed.data : undefined;
      // Computed defaults (`<host>-<pid>`) and parsed ones (lists, JSON) are described, not shown.
      if (!['string', 'number', 'boolean'].includes(typeof value) || defaults.includes('<')) continue;
      if (!defaults.includes(`\`${String(value)}\``)) wrong.push(`${name}: README says ${defaults}, the schema ${String(value)}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('README limits', () => {
  const section = README.split(/^## Limits$/m)[1]!.split(/^## /m)[0]!;
  const rowOf = (label: string) => section.split('\n').find((line) => line.startsWith(`| ${label}`)) ?? '';

  it('states the payload cap, the batch shape and the agent spec size of the contracts', () => {
    expect(rowOf("a fact's `payload`")).toContain(`(${MAX_PAYLOAD_BYTES.toLocaleString('en')} bytes)`);
    expect(rowOf('`POST …/events:batch`')).toContain(`1 to ${MAX_BATCH_SIZE} facts`);
    expect(rowOf('an agent spec')).toContain(`${MAX_AGENT_SPEC_BYTES / 1024} KiB`);
  });

  it.each([
    ['`limit` of `GET …/events`', [ListEventsQuerySchema]],
    ['`limit` of `GET …/agents`', [ListAgentsQuerySchema, ListAgentVersionsQuerySchema, ListRunsQuerySchema]],
    ['`limit` of `GET …/runs/{id}/transcript`', [TranscriptQuerySchema]],
  ])('states the range and default of %s', (label, schemas) => {
    const [, max, fallback] = /1 to (\d+), default (\d+)/.exec(rowOf(label)) ?? [];
    expect({ label, max, fallback }).toEqual({ label, max: expect.stringMatching(/^\d+$/), fallback: expect.stringMatching(/^\d+$/) });
    for (const schema of schemas) {
      const limit = (schema as z.ZodObject).shape.limit!;
      expect(limit.safeParse(max).success).toBe(true);
      expect(limit.safeParse(String(Number(max) + 1)).success).toBe(false);
      expect(limit.safeParse(undefined)).toEqual({ success: true, data: Number(fallback) });
    }
  });
});
