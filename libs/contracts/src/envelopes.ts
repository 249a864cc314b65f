import { z } from 'zod';
import { AcceptedFactSchema, FactSchema } from './facts';

/**
 * Every stream message carries these, so that a consumer can tell what it
 * holds and which version of the shape wrote it.
 *
 * schemaVersion changelog:
 * - 1: first version.
 */
const envelope = {
  /** The message id; for fact messages the fact's id (consumers dedupe by it). */
  id: z.uuid(),
  occurredAt: z.iso.datetime(),
  /** The request or run that produced it, for tracing across services. */
  correlationId: z.string().min(1).max(128),
  schemaVersion: z.literal(1),
};

/** On `ingest`: a fact the gateway accepted. */
export const FactAcceptedMessageSchema = z.strictObject({
  ...envelope,
  type: z.literal('fact_accepted'),
  fact: AcceptedFactSchema,
});
export type FactAcceptedMessage = z.infer<typeof FactAcceptedMessageSchema>;

/** On `facts`: a fact persisted by the event-log, with its seq. */
export const FactPublishedMessageSchema = z.strictObject({
  ...envelope,
  type: z.literal('fact_published'),
  workspaceId: z.uuid(),
  fact: FactSchema,
});
export type FactPublishedMessage = z.infer<typeof FactPublishedMessageSchema>;

/**
 * One fact to put on `ingest` (what a producer hands the ingest writer, or the
 * outbox relay a row): the accepted fact and the request or run it came from.
 */
export const IngestItemSchema = FactAcceptedMessageSchema.pick({ fact: true, correlationId: true });
export type IngestItem = z.infer<typeof IngestItemSchema>;

export const IngestMessageSchema = z.discriminatedUnion('type', [FactAcceptedMessageSchema]);
export type IngestMessage = z.infer<typeof IngestMessageSchema>;

export const FactsMessageSchema = z.discriminatedUnion('type', [FactPublishedMessageSchema]);
export type FactsMessage = z.infer<typeof FactsMessageSchema>;
