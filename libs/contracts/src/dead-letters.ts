import { z } from 'zod';

/** What a consumer records about a stream entry it gave up on. */
export const NewDeadLetterSchema = z.strictObject({
  /** The source stream's full key (`sy:ingest`). */
  stream: z.string().min(1),
  group: z.string().min(1),
  /** The consumer that gave up on it. */
  consumer: z.string(),
  /** The entry id in the source stream (`1700000000000-0`). */
  entryId: z.string().min(1),
  /** The entry's message JSON (field `m`), or the JSON of its fields when it had none. */
  message: z.string(),
  deliveries: z.number().int().min(0),
  error: z.string(),
});
export type NewDeadLetter = z.infer<typeof NewDeadLetterSchema>;

/** A dead letter as stored in PostgreSQL and listed by `npm run admin -- dead-letters list`. */
export const DeadLetterSchema = NewDeadLetterSchema.extend({
  /** The letter's own id: what `dead-letters replay ID` takes. */
  id: z.string().regex(/^\d+$/),
  failedAt: z.iso.datetime(),
  /** When it was put back on its stream; null while it waits for an operator. */
  replayedAt: z.iso.datetime().nullable(),
  /** The entry id the replay appended. */
  replayedAs: z.string().nullable(),
});
export type DeadLetter = z.infer<typeof DeadLetterSchema>;
