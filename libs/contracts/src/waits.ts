import { z } from 'zod';
import { FactSchema, KindGlobSchema } from './facts';
import { TriggerFilterSchema } from './trigger-filter';

/** Shortest and longest wait a run may ask for (decision 0055): a second to seven days. */
export const WAIT_TIMEOUT_MS = { min: 1_000, max: 7 * 24 * 3_600_000 } as const;

/**
 * `platform.wait_for_event {kind, filter?, timeoutMs}`: the run parks
 * (`awaiting_event`) until a fact of the workspace recorded after the call
 * matches `kind` (a kind glob, as a trigger's) and `filter` (the trigger
 * filter language), or `timeoutMs` passes.
 */
export const WaitForEventToolInputSchema = z.strictObject({
  kind: KindGlobSchema,
  filter: TriggerFilterSchema.optional(),
  timeoutMs: z.number().int().min(WAIT_TIMEOUT_MS.min).max(WAIT_TIMEOUT_MS.max),
});
export type WaitForEventToolInput = z.infer<typeof WaitForEventToolInputSchema>;

/** How a wait ended: the statuses of `run_waits` after `pending`. */
export const WAIT_STATUSES = { pending: 'pending', matched: 'matched', timedOut: 'timed_out', cancelled: 'cancelled' } as const;
export type WaitStatus = (typeof WAIT_STATUSES)[keyof typeof WAIT_STATUSES];

/** What the model receives as the tool's result: the matching fact, or a typed timeout. */
export const WaitForEventResultSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('fact'), fact: FactSchema }),
  z.strictObject({ type: z.literal('timeout'), kind: KindGlobSchema, timeoutMs: z.number().int().positive() }),
]);
export type WaitForEventResult = z.infer<typeof WaitForEventResultSchema>;

/** `run_wait_resolve`: whether the wait was resolved now, and whether that put its run back in line. */
export const RunWaitResolveRowSchema = z.union([
  z.strictObject({ resolved: z.literal(false) }),
  z.strictObject({ resolved: z.literal(true), resumed: z.boolean(), runId: z.uuid(), workspaceId: z.uuid().nullable(), agentId: z.uuid().nullable() }),
]);
export type RunWaitResolveRow = z.infer<typeof RunWaitResolveRowSchema>;
