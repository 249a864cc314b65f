import type { TranscriptEntryType } from '@switchyard/contracts';

/**
 * The transcript port as the fake and the conformance suite see it: the
 * runner's `TranscriptStore`, `TranscriptWriter` and `StoredEntry`
 * (services/runner/src/loop/loop-ports.ts), restated here because a lib does
 * not depend on a service. The runner's tests pass the fake as a
 * `TranscriptStore`, so the compiler keeps the shapes the same.
 */
export interface ConformingTranscriptWriter {
  add(type: TranscriptEntryType, content: Record<string, unknown>): number;
  flush(): Promise<void>;
}

/** A transcript entry as stored. */
export interface ConformingStoredEntry {
  seq: number;
  type: string;
  content: unknown;
}

/** Who a writer writes for: the run, its workspace, its session and the session's last seq before it. */
export interface TranscriptRunRef {
  runId: string;
  workspaceId: string;
  sessionId: string;
  lastSeq: number;
}

/** The transcript port (see the note above). */
export interface ConformingTranscriptStore {
  open(run: TranscriptRunRef): ConformingTranscriptWriter;
  entries(run: { runId: string; workspaceId: string }): Promise<ConformingStoredEntry[]>;
}
