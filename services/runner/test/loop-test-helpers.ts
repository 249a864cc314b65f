import type { RunState } from '@switchyard/contracts';
import type { SqlRunner } from '@switchyard/db';
import { createLogger } from '@switchyard/logging';
import type { Redis } from '@switchyard/redis';
import { RedisMailbox } from '../src/adapters/redis-mailbox';
import { SqlRunContextStore } from '../src/adapters/sql-run-context';
import { SqlSecretReader } from '../src/adapters/sql-secret-reader';
import { SqlSpendLedger } from '@switchyard/runs';
import { SqlTranscriptStore } from '../src/adapters/sql-transcript-store';
import { AgentLoop, type AgentLoopOptions } from '../src/loop/agent-loop';
import type { StepOutcome } from '../src/loop/steps';
import { createModel } from '../src/model/create-model';
import { createPriceTable } from '../src/model/prices';
import { connectTools } from '../src/tools';

const log = createLogger({ service: 'loop-test', level: 'silent' });

/**
 * Why this exists: the loop's durability tests run the same AgentLoop in the
 * test process and in a child process they SIGKILL. Built as a runner builds
 * it, on the real stores (transcript in PostgreSQL, mailbox in Redis); the
 * OpenAI model is pointed nowhere (these tests use the scripted model).
 * `overrides` replace ports (a store wrapped to count its reads).
 */
export function realAgentLoop(
  sql: SqlRunner,
  redis: Redis,
  prefix: string,
  onStep?: (outcome: StepOutcome, state: Readonly<RunState>) => void,
  overrides: Partial<AgentLoopOptions> = {},
): AgentLoop {
  return new AgentLoop({
    contexts: new SqlRunContextStore(sql),
    transcripts: new SqlTranscriptStore(sql),
    mailbox: new RedisMailbox(redis, prefix),
    spend: new SqlSpendLedger(sql),
    secrets: new SqlSecretReader(sql, null),
    prices: createPriceTable(),
    model: (spec, input) => createModel(spec, { ...input, env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: undefined, MODEL_TIMEOUT_MS: 1000, MODEL_MAX_ATTEMPTS: 1 } }),
    tools: (input) => connectTools({ ...input, options: { allowPrivate: true }, log }),
    ...(onStep ? { onStep } : {}),
    log,
    ...overrides,
  });
}
