import { RUN_CANCEL_REASONS } from '@switchyard/contracts';
import type { SqlRunner } from '@switchyard/db';

/**
 * Cancels these runs where they are parked on a wait (a parked run has no
 * runner to cancel it) and closes their pending waits `cancelled`, so that a
 * fact or a timeout arriving later resolves nothing. The caller holds the
 * runs' lane locks. Returns how many runs it cancelled.
 */
export async function closeRunWaits(tx: SqlRunner, runIds: readonly string[]): Promise<number> {
  if (runIds.length === 0) return 0;
  await tx.$executeRawUnsafe(
    `UPDATE run_waits SET status = 'cancelled', resolved_at = clock_timestamp() WHERE run_id = ANY($1::uuid[]) AND status = 'pending'`,
    [...runIds],
  );
  return tx.$executeRawUnsafe(
    `UPDATE runs SET status = 'cancelled', reason = $2::text, stop_requested = true, ended_at = clock_timestamp()
      WHERE id = ANY($1::uuid[]) AND status = 'awaiting_event'`,
    [...runIds],
    RUN_CANCEL_REASONS.stopped,
  );
}
