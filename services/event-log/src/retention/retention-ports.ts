/** What a drop of one week's partition came to (platform_events_drop_expired_partition). */
export type PartitionDrop = 'dropped' | 'gone' | 'kept' | 'keys_pending' | 'busy';

/** The platform defaults and the clock a purge is reckoned by. */
export interface RetentionReckoning {
  /** Now, by the job's clock. */
  now: Date;
  /** RETENTION_DEFAULTS: the days of a workspace that never set its own. */
  defaults: { factsDays: number; transcriptsDays: number };
}

/**
 * The retention job's storage (decision 0041). Every method is one statement (or one short
 * transaction), idempotent and safe to run on two replicas at once; a `batch` bounds the rows
 * one call deletes.
 */
export interface RetentionStore {
  /** Makes the (week) partitions holding these UTC days (`YYYY-MM-DD`) unless they exist; returns how many it made. */
  ensurePartitions(days: readonly string[], lockTimeoutMs: number): Promise<number>;
  /**
   * Advances each workspace's purge mark (fact_horizons) to the highest seq below which every
   * fact is older than its horizon (so what remains stays dense); returns how many marks moved.
   * Marks only rise, and are written before anything is deleted: a reader never skips a fact silently.
   */
  advanceHorizons(reckoning: RetentionReckoning): Promise<number>;
  /** Deletes up to `batch` idempotency keys at or below their workspace's mark; returns how many. */
  trimKeys(batch: number): Promise<number>;
  /** The week partitions (`platform_events_p<Monday>`) every one of whose facts may have passed some horizon, oldest first. */
  expiredPartitionCandidates(reckoning: RetentionReckoning): Promise<string[]>;
  /** Drops one week's partition if retention purged every fact in it. */
  dropPartition(name: string, lockTimeoutMs: number): Promise<PartitionDrop>;
  /** Deletes up to `batch` facts at or below their workspace's mark still stored (in partitions another workspace keeps); returns how many. */
  deleteFactRows(batch: number): Promise<number>;
  /** Deletes up to `batch` activation skips older than their workspace's facts horizon. */
  deleteActivationSkips(reckoning: RetentionReckoning, batch: number): Promise<number>;
  /** Deletes up to `batch` tries older than their workspace's transcripts horizon (their run ended). */
  deleteTries(reckoning: RetentionReckoning, batch: number): Promise<number>;
  /** Deletes up to `batch` transcript entries of sessions idle past their workspace's transcripts horizon. */
  deleteTranscripts(reckoning: RetentionReckoning, batch: number): Promise<number>;
}
