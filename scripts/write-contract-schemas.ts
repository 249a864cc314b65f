/**
 * Writes the canonical JSON Schema files generated from libs/contracts
 * (`npm run contracts:schemas`). The test libs/contracts/test/agent-message.test.ts
 * fails while a file differs from what its zod schema generates.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentMessageJsonSchema } from '@switchyard/contracts';

const target = join(__dirname, '..', 'libs', 'contracts', 'schemas', 'agent-message-v1.schema.json');
writeFileSync(target, `${JSON.stringify(agentMessageJsonSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${target}\n`);
