import type { Approval, ApprovalDecider, ApprovalKind, ApprovalStatus } from '@switchyard/contracts';

/**
 * The columns of `approvals` every raw query selects, so that one mapping
 * (approvalFromRow) turns rows into Approvals for the runner that parks, the
 * gateway that decides and the approvals service that expires (decision 0025).
 */
export const APPROVAL_COLUMNS =
  'id::text AS id, workspace_id::text AS workspace_id, run_id::text AS run_id, agent_id::text AS agent_id, agent_version, kind, tool_call_id, tool, arguments_preview, truncated, reason, status, requested_at, expires_at, decided_by, note, decided_at, execution_started_at';

/** A row selected with APPROVAL_COLUMNS. */
export interface ApprovalRow {
  id: string;
  workspace_id: string;
  run_id: string;
  agent_id: string;
  agent_version: number;
  kind: string;
  tool_call_id: string;
  tool: unknown;
  arguments_preview: string;
  truncated: boolean;
  reason: string | null;
  status: string;
  requested_at: Date | string;
  expires_at: Date | string;
  decided_by: unknown;
  note: string | null;
  decided_at: Date | string | null;
  execution_started_at: Date | string | null;
}

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

/**
 * A stored row as the public Approval. The row was validated when it was
 * written (CHECK constraints hold its vocabularies), so this maps rather than
 * re-parses.
 */
export function approvalFromRow(row: ApprovalRow, workspaceSlug: string): Approval {
  return {
    id: row.id,
    workspace: workspaceSlug,
    kind: row.kind as ApprovalKind,
    runId: row.run_id,
    agentId: row.agent_id,
    agentVersion: Number(row.agent_version),
    toolCallId: row.tool_call_id,
    tool: (row.tool ?? null) as Approval['tool'],
    argumentsPreview: row.arguments_preview,
    truncated: row.truncated,
    reason: row.reason,
    status: row.status as ApprovalStatus,
    requestedAt: iso(row.requested_at),
    expiresAt: iso(row.expires_at),
    decidedBy: (row.decided_by ?? null) as ApprovalDecider | null,
    note: row.note,
    decidedAt: row.decided_at === null ? null : iso(row.decided_at),
  };
}
