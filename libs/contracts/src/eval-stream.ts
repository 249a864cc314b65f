import { z } from 'zod';
import { EvalRunSchema } from './evals';

/*
 * The live progress of an eval run (decision 0058, "Streaming"):
 * `GET /v1/workspaces/{ws}/evals/{id}/stream` sends one `trial` event per
 * trial as its run ends, then the settled eval as `verdict`, and ends.
 */

/** A trial whose run ended: its place in the eval, what the run did, and its deterministic checks (the judge, if any, answers at settling). */
export const EvalTrialEventSchema = z.strictObject({
  caseIndex: z.number().int().min(0),
  target: z.number().int().min(0),
  trial: z.number().int().min(0),
  runId: z.uuid(),
  status: z.string(),
  /** The checks of the case's `expect` held (a judged case may still fail on its judge). */
  checksPassed: z.boolean(),
  failures: z.array(z.string()),
  /** The case has a judge whose verdict comes with the settled eval. */
  judgePending: z.boolean(),
  tokens: z.number(),
  costUsd: z.number(),
  durationMs: z.number(),
});
export type EvalTrialEvent = z.infer<typeof EvalTrialEventSchema>;

/** One event of the stream: `event:` is its type, `data:` its JSON. */
export const EvalStreamEventSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('trial'), trial: EvalTrialEventSchema }),
  z.strictObject({ type: z.literal('verdict'), eval: EvalRunSchema }),
]);
export type EvalStreamEvent = z.infer<typeof EvalStreamEventSchema>;

/**
 * `Last-Event-ID` of the eval stream: which trials the client has, one bit a
 * trial in slot order (`(caseIndex × targets + target) × trials + trial`),
 * base64url. A resume sends the ended trials it lacks, on any replica.
 */
export const EvalStreamCursorSchema = z.string().max(4_000).regex(/^[A-Za-z0-9_-]*$/, 'base64url');

/**
 * `GET /agents/{id}/eval-gate` (viewer): the promotion gate of the version
 * that runs (its pin, else its latest) — the gate of the latest spec, the
 * newest eval that counts for it, and whether enabling or pinning it would
 * be let through without an override.
 */
export const EvalGateStateSchema = z.strictObject({
  gate: z.strictObject({ suite: z.uuid(), trials: z.number().int(), allowRegression: z.boolean() }).nullable(),
  version: z.number().int(),
  evalId: z.uuid().nullable(),
  passed: z.boolean().nullable(),
  failingCases: z.array(z.number().int()),
  allowed: z.boolean(),
});
export type EvalGateState = z.infer<typeof EvalGateStateSchema>;
