import { ProposePlanToolInputSchema } from '@switchyard/contracts';
import { PLATFORM_SERVER, qualifyToolName, toModelToolName, type ToolDefinition } from '../tools';

/** The notices that record a plan's decision in the transcript (the run state folds them: run-state.ts). */
export const PLAN_NOTICES = {
  /** The plan was approved; `mode` is the mode the run goes on in (`approvals.afterPlan`). */
  approved: 'plan_approved',
  /** The plan was denied (or expired); `message` is the plan, the run's summary as it completes. */
  denied: 'plan_denied',
} as const;

const PLAN_TOOL_NAME = qualifyToolName(PLATFORM_SERVER, 'propose_plan');

/**
 * `platform.propose_plan {plan}`: offered in plan mode only. The runner
 * answers it itself — it never reaches the gateway's `/mcp`, since what it
 * does is park the run on an approval of kind `plan`, which only the loop can
 * (decision 0026).
 */
export const PLAN_TOOL: ToolDefinition = {
  name: PLAN_TOOL_NAME,
  modelName: toModelToolName(PLAN_TOOL_NAME),
  description: 'Propose your plan to a person. Call it once you know what you would change; the run waits for their decision. Approved, you may carry it out; denied, the run ends.',
  inputSchema: {
    type: 'object',
    properties: { plan: { type: 'string', minLength: 1, maxLength: 20_000, description: 'What you will do, step by step.' } },
    required: ['plan'],
    additionalProperties: false,
  },
  server: PLATFORM_SERVER,
  readOnly: true,
  destructive: false,
  trusted: true,
};

/** Whether a tool is the plan tool. */
export function isPlanTool(tool: ToolDefinition | undefined): boolean {
  return tool?.name === PLAN_TOOL_NAME;
}

/** The plan of a propose_plan call's arguments, or null when they do not parse. */
export function planOf(args: Record<string, unknown>): string | null {
  const parsed = ProposePlanToolInputSchema.safeParse(args);
  return parsed.success ? parsed.data.plan : null;
}
