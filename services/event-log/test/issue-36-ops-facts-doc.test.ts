import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FactSchema, NotificationSettingsSchema, OPS_FACT_KINDS, OPS_FACT_PAYLOAD_SCHEMAS, type OpsFactKind } from '@switchyard/contracts';
import { EventLogEnvSchema } from '../src/config';

/*
 * Issue 36: docs/ops-facts.md is a reference people copy from, so its
 * examples are checked here — every example fact and its payload parse with
 * the contracts, one example per kind, the example settings are what the
 * notification API accepts, and its configuration table says what the
 * event-log's schema does.
 */
const doc = readFileSync(path.resolve(__dirname, '../../../docs/ops-facts.md'), 'utf8');
const jsonBlocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => JSON.parse(match[1]!) as Record<string, unknown>);

describe('docs/ops-facts.md', () => {
  it('shows one example fact of every ops kind, each a valid fact with its kind’s payload', () => {
    const facts = jsonBlocks.filter((block) => typeof block.kind === 'string');
    expect(facts.map((fact) => fact.kind).sort()).toEqual(Object.values(OPS_FACT_KINDS).sort());
    for (const example of facts) {
      const fact = FactSchema.parse(example);
      OPS_FACT_PAYLOAD_SCHEMAS[fact.kind as OpsFactKind].parse(fact.payload);
      expect(fact.subject.type).toBe('platform');
      expect(fact.actor).toEqual({ type: 'system', id: 'switchyard' });
    }
  });

  it('shows notification settings the API accepts, with a rule on platform.*', () => {
    const [settings, ...more] = jsonBlocks.filter((block) => 'rules' in block);
    expect(more).toEqual([]);
    const parsed = NotificationSettingsSchema.parse(settings);
    expect(parsed.rules.map((rule) => rule.kind)).toContain('platform.*');
  });

  it('has a configuration table that matches the event-log’s defaults', () => {
    const rows = [...doc.matchAll(/^\| `(OPS_[A-Z_]+)` \| `([^`]+)` \|/gm)].map((match) => [match[1]!, match[2]!]);
    const opsVariables = Object.keys(EventLogEnvSchema.shape).filter((name) => name.startsWith('OPS_'));
    expect(rows.map(([name]) => name).sort()).toEqual(opsVariables.sort());
    for (const [name, shown] of rows) {
      const field = EventLogEnvSchema.shape[name as keyof typeof EventLogEnvSchema.shape];
      expect(`${name}=${String(field.parse(undefined))}`).toBe(`${name}=${shown}`);
    }
  });
});
