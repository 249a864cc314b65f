/**
 * The API's shapes the UI reads, as types only: they come from the contracts
 * (zod is never bundled into the page).
 */
export type {
  AgentMessageHealth,
  BackfillBatch,
  AgentMessageObservation,
  AdoptTemplateResponse,
  TemplateSummary,
  AgentResponse,
  AgentActivation,
  AgentBundle,
  AgentSpec,
  AgentTry,
  AgentVersionDiffResponse,
  Collaborator,
  Approval,
  AuditActorsResponse,
  AuditPage,
  EventActivationsResponse,
  TeammateActivation,
  Fact,
  ImportAgentsResponse,
  Invitation,
  JoinedResponse,
  Member,
  NotificationConnection,
  NotificationRule,
  NotificationSettings,
  NotificationTestResponse,
  MessageSentPayload,
  Run,
  SecretInfo,
  SignInMethodsResponse,
  RunFactPayload,
  RunStatus,
  RunTrigger,
  Schedule,
  ScheduleFire,
  Task,
  TaskStatus,
  TokenInfo,
  Teammate,
  TeamDetail,
  TeamSummary,
  TranscriptEntry,
  RunTrace,
  TraceSpan,
  TryAgentResponse,
  CraftEvent,
  CraftPatchOperation,
  UiSessionResponse,
  WouldHave,
  WorkspaceSettings,
  EvalCase,
  EvalGateState,
  EvalRun,
  EvalStreamEvent,
  EvalSuite,
  EvalTrialEvent,
} from '@switchyard/contracts';

/** The built-in crafting agent's reserved name (the contracts' CRAFTING_AGENT_NAME; zod is not bundled, so the value is repeated). */
export const CRAFTING_AGENT_NAME = 'switchyard-crafting';

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

/** What a stop did to one run (`POST /runs/{id}/stop`, decision 0028). */
export interface StoppedRun {
  id: string;
  agentId: string;
  status: string;
  action: 'cancelled' | 'stop_requested';
  approvalsClosed: number;
}
