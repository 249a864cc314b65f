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

/*
 * The limits table of the API reference (docs/api.md, once the README's) states the bounds the
 * contracts enforce (issue 13). The configuration table is written from the env schemas and
 * checked by issue-14-config-table.test.ts.
 */
const API_PAGE = readFileSync(path.resolve(__dirname, '../../docs/api.md'), 'utf8');

describe('the limits of docs/api.md', () => {
  const section = API_PAGE.split(/^## Limits$/m)[1]!.split(/^## /m)[0]!;
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
