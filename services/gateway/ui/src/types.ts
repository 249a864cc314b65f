/**
 * The API's shapes the UI reads, as types only: they come from the contracts
 * (zod is never bundled into the page).
 */
export type {
  AgentResponse,
  AgentSpec,
  Approval,
  Fact,
  Run,
  RunStatus,
  TranscriptEntry,
  UiSessionResponse,
  WorkspaceSettings,
} from '@switchyard/contracts';

/** An agent version as `GET /agents/{id}/versions` lists it. */
export interface AgentVersionSummary {
  agentId: string;
  version: number;
  name: string;
  createdBy: string;
  createdAt: string;
}

/** One issue of a `VALIDATION_FAILED` error (zod's). */
export interface ValidationIssue {
  path: (string | number)[];
  message: string;
  code?: string;
}
