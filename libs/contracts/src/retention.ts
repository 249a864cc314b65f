import { z } from 'zod';

/**
 * How long a workspace keeps what grows without bound (issue 36 §4, decision 0041, docs/retention.md).
 * A workspace that never set them has these.
 */
export const RETENTION_DEFAULTS = {
  /** Days facts (and the matcher's activation skips, which explain a fact) are kept. */
  factsDays: 90,
  /** Days transcripts (and tries) are kept after their session's last run ended. */
  transcriptsDays: 30,
} as const;

/** The fewest days a workspace may keep anything (facts are purged by whole UTC weeks, decision 0041). */
export const RETENTION_DAYS_MIN = 1;
/** The most days a workspace may ask for (ten years). */
export const RETENTION_DAYS_MAX = 3650;

const RetentionDaysSchema = z.number().int().min(RETENTION_DAYS_MIN).max(RETENTION_DAYS_MAX);

/** A workspace's retention as it applies (`GET /settings`, the `workspace.settings_changed` payload). */
export const RetentionSettingsSchema = z.strictObject({
  /** Facts older than this many days are purged (within a week after: facts go by UTC weeks). @defaultValue 90 */
  factsDays: RetentionDaysSchema,
  /** Transcripts and tries whose session ended this many days ago are purged (within a day after). @defaultValue 30 */
  transcriptsDays: RetentionDaysSchema,
});
export type RetentionSettings = z.infer<typeof RetentionSettingsSchema>;

/**
 * `retention` of a `PUT /settings` body: the values to change; `null` puts one back to the
 * platform default, a field left out keeps its saved value.
 */
export const PutRetentionSettingsSchema = z
  .strictObject({ factsDays: RetentionDaysSchema.nullable().optional(), transcriptsDays: RetentionDaysSchema.nullable().optional() })
  .refine((body) => Object.keys(body).length > 0, { message: 'name factsDays, transcriptsDays or both' });
export type PutRetentionSettings = z.infer<typeof PutRetentionSettingsSchema>;

/** `details` of a `410 CURSOR_EXPIRED`: the cursor asked for, and the oldest seq still kept. */
export const CursorExpiredDetailsSchema = z.strictObject({
  after: z.number().int().min(0),
  /** The seq to resume from (pass `after = oldestSeq - 1`); facts below it were purged by retention. */
  oldestSeq: z.number().int().min(1),
});
export type CursorExpiredDetails = z.infer<typeof CursorExpiredDetailsSchema>;
