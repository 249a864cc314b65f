import { AppError, ErrorCode, TranscriptEntrySchema, type TranscriptEntry } from '@switchyard/contracts';
import type { PrismaClient } from '@switchyard/db';
import type { TranscriptReader } from '../run-ports';

/**
 * Reads `transcript_entries` (the runner writes them, append-only). Rows are
 * parsed at this boundary: another service wrote them, and an entry this code
 * cannot read is an internal error rather than a malformed API answer.
 */
export class PrismaTranscriptReader implements TranscriptReader {
  constructor(private readonly prisma: PrismaClient) {}

  async listForRun(workspaceId: string, runId: string, options: { after: number; limit: number }): Promise<TranscriptEntry[]> {
    return this.page({ workspaceId, runId }, options);
  }

  /** By the primary key `(session_id, seq)`: a page costs its rows whatever the session's length. */
  async listForSession(workspaceId: string, sessionId: string, options: { after: number; limit: number }): Promise<TranscriptEntry[]> {
    return this.page({ workspaceId, sessionId }, options);
  }

  private async page(where: { workspaceId: string; runId?: string; sessionId?: string }, options: { after: number; limit: number }): Promise<TranscriptEntry[]> {
    const rows = await this.prisma.transcriptEntry.findMany({
      where: { ...where, seq: { gt: options.after } },
      orderBy: { seq: 'asc' },
      take: options.limit,
    });
    return rows.map((row) => {
      const parsed = TranscriptEntrySchema.safeParse({ seq: row.seq, runId: row.runId, type: row.type, content: row.content, at: row.at.toISOString() });
      if (!parsed.success) {
        throw new AppError(ErrorCode.INTERNAL, 'stored transcript entry has a shape this code cannot read', {
          sessionId: row.sessionId,
          seq: row.seq,
          issues: parsed.error.issues,
        });
      }
      return parsed.data;
    });
  }
}
