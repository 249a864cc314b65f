import { randomUUID } from 'node:crypto';
import {
  CreateTaskRequestSchema,
  DelegateToAgentToolInputSchema,
  MAX_TASK_BLOCKERS,
  PLATFORM_TOOL_INPUT_SCHEMAS,
  RunOriginSchema,
  UpdateTaskRequestSchema,
  UpdateTaskToolInputSchema,
} from '../src';

/** The task ledger's and delegation's contracts (issue 17): what the door accepts and refuses. */
describe('task and delegation contracts', () => {
  it('a task body: defaults filled, blockers distinct and bounded, subject not blank, nothing unknown', () => {
    expect(CreateTaskRequestSchema.parse({ subject: ' Ship it ' })).toEqual({ subject: 'Ship it', description: '', blockedBy: [] });
    const id = randomUUID();
    expect(CreateTaskRequestSchema.safeParse({ subject: 'x', blockedBy: [id, id] }).success).toBe(false);
    expect(CreateTaskRequestSchema.safeParse({ subject: 'x', blockedBy: Array.from({ length: MAX_TASK_BLOCKERS + 1 }, () => randomUUID()) }).success).toBe(false);
    expect(CreateTaskRequestSchema.safeParse({ subject: 'x', blockedBy: Array.from({ length: MAX_TASK_BLOCKERS }, () => randomUUID()) }).success).toBe(true);
    expect(CreateTaskRequestSchema.safeParse({ subject: '  ' }).success).toBe(false);
    expect(CreateTaskRequestSchema.safeParse({ subject: 'x', status: 'completed' }).success).toBe(false);
  });

  it('a patch changes at least one field; the tool takes the id beside them', () => {
    expect(UpdateTaskRequestSchema.safeParse({}).success).toBe(false);
    expect(UpdateTaskRequestSchema.safeParse({ description: '' }).success).toBe(true);
    const id = randomUUID();
    expect(UpdateTaskToolInputSchema.safeParse({ id }).success).toBe(false);
    expect(UpdateTaskToolInputSchema.parse({ id, subject: 'y' })).toEqual({ id, subject: 'y' });
  });

  it('delegate_to_agent names its target by id or agent name, with a bounded objective', () => {
    expect(DelegateToAgentToolInputSchema.safeParse({ target: 'reviewer', objective: 'look' }).success).toBe(true);
    expect(DelegateToAgentToolInputSchema.safeParse({ target: randomUUID(), objective: 'look', context: 'pr 4' }).success).toBe(true);
    expect(DelegateToAgentToolInputSchema.safeParse({ target: 'Reviewer!', objective: 'look' }).success).toBe(false);
    expect(DelegateToAgentToolInputSchema.safeParse({ target: 'reviewer', objective: ' ' }).success).toBe(false);
    expect(PLATFORM_TOOL_INPUT_SCHEMAS.delegate_to_agent).toBe(DelegateToAgentToolInputSchema);
  });

  it('a delegated run has an origin of its own, and the older origins still parse', () => {
    const delegation = { type: 'delegation', parentRunId: randomUUID(), parentAgentId: randomUUID(), objective: 'look', userId: randomUUID() };
    expect(RunOriginSchema.parse(delegation)).toEqual(delegation);
    expect(RunOriginSchema.safeParse({ ...delegation, parentRunId: 'nope' }).success).toBe(false);
    expect(RunOriginSchema.parse({ type: 'manual', input: 'go', userId: randomUUID() }).type).toBe('manual');
  });
});
