export { AppError, ErrorBodySchema, ErrorCode, ErrorCodeSchema, NonRetriableError } from './errors';
export { JsonValueSchema } from './json-value';
export type { ErrorBody } from './errors';
export { GROUPS, MAILBOX_FIELD, mailboxStream, STREAMS } from './streams';
export type { GroupName, StreamName } from './streams';
export {
  AcceptedFactSchema,
  ActorSchema,
  CausedBySchema,
  FactIdSchema,
  FactSchema,
  IdempotencyKeySchema,
  KIND_PATTERN,
  KindGlobSchema,
  KindSchema,
  ListEventsQuerySchema,
  ListEventsResponseSchema,
  MAX_BATCH_SIZE,
  MAX_PAYLOAD_BYTES,
  PayloadSchema,
  PostEventBatchRequestSchema,
  PostEventBatchResponseSchema,
  PostEventRequestSchema,
  PostEventResponseSchema,
  SubjectSchema,
  WorkspaceSlugSchema,
} from './facts';
export type {
  AcceptedFact,
  Actor,
  CausedBy,
  Fact,
  ListEventsQuery,
  PostEventBatchRequest,
  PostEventRequest,
  Subject,
} from './facts';
export {
  FactAcceptedMessageSchema,
  FactPublishedMessageSchema,
  FactsMessageSchema,
  IngestMessageSchema,
} from './envelopes';
export type { FactAcceptedMessage, FactPublishedMessage, FactsMessage, IngestMessage } from './envelopes';
export {
  CreatedTokenSchema,
  CreateTokenRequestSchema,
  ListTokensResponseSchema,
  MAX_TOKEN_TTL_SECONDS,
  RoleSchema,
  StreamQuerySchema,
  StreamTicketResponseSchema,
  TokenInfoSchema,
  WhoAmIResponseSchema,
} from './auth';
export type { CreateTokenRequest, Role, TokenInfo, WhoAmIResponse } from './auth';
export {
  AGENT_FACT_KINDS,
  AGENT_SPEC_SCHEMA_VERSION,
  AgentBudgetSchema,
  AgentFactPayloadSchema,
  AgentFlowSchema,
  AgentIdSchema,
  AgentModelSchema,
  AgentNameSchema,
  AgentResponseSchema,
  AgentRulesSchema,
  AgentSpecSchema,
  AgentToolsSchema,
  AgentVersionParamSchema,
  AgentVersionResponseSchema,
  AgentVersionSummarySchema,
  CreateAgentRequestSchema,
  IfMatchSchema,
  ListAgentsQuerySchema,
  ListAgentsResponseSchema,
  ListAgentVersionsQuerySchema,
  ListAgentVersionsResponseSchema,
  MAX_AGENT_SPEC_BYTES,
  MAX_AGENT_TRIGGERS,
  McpHttpServerSchema,
  McpServerSchema,
  McpStdioServerSchema,
  ScriptStepSchema,
  SUPPORTED_AGENT_SPEC_SCHEMA_VERSIONS,
  ToolNameGlobSchema,
  UpdateAgentRequestSchema,
} from './agents';
export type {
  AgentFactKind,
  AgentFactPayload,
  AgentResponse,
  AgentSpec,
  AgentVersionResponse,
  AgentVersionSummary,
  CreateAgentRequest,
  ListAgentsQuery,
  ListAgentVersionsQuery,
  McpServer,
  UpdateAgentRequest,
} from './agents';
export {
  checkRegexSafety,
  MATCHES_INPUT_MAX_CHARS,
  REGEX_MAX_COST,
  REGEX_MAX_REPEAT_BOUND,
  REGEX_MAX_SOURCE_CHARS,
  REGEX_TOO_COSTLY,
} from './regex-safety';
export type { RegexSafety } from './regex-safety';
export {
  FILTER_MAX_DEPTH,
  FILTER_MAX_NODES,
  FILTER_MAX_STRING_CHARS,
  FILTER_MAX_VALUE_DEPTH,
  FILTER_MAX_VALUE_NODES,
  FILTER_OPERATORS,
} from './trigger-filter-bounds';
export {
  FILTER_MAX_LIST_ITEMS,
  FILTER_MAX_PATH_CHARS,
  FILTER_MAX_PATH_SEGMENTS,
  FILTER_PATH_PATTERN,
  FilterConditionSchema,
  FilterNodeSchema,
  FilterPathSchema,
  TriggerFilterSchema,
  TriggerSchema,
} from './trigger-filter';
export type { FilterCondition, FilterOperator, FilterValue, Trigger, TriggerFilter } from './trigger-filter';
export {
  ActivationJobSchema,
  QUEUES,
  RunOriginSchema,
  RunOutcomeSchema,
  RunSchema,
  RunStatusSchema,
  ToolCallCountsSchema,
  ToolCallResultSchema,
  WorkspaceSettingsSchema,
} from './runs';
export type { ActivationJob, Run, RunOrigin, RunOutcome, RunStatus, ToolCallCounts, ToolCallResult, WorkspaceSettings } from './runs';
export {
  ListRunsQuerySchema,
  ListRunsResponseSchema,
  RUN_FACT_KINDS,
  RunFactPayloadSchema,
  RunIdSchema,
  StartRunRequestSchema,
  WORKSPACE_FACT_KINDS,
  WorkspaceSettingsChangedPayloadSchema,
} from './runs-api';
export type { ListRunsQuery, RunFactKind, RunFactPayload, StartRunRequest, WorkspaceSettingsChangedPayload } from './runs-api';
export {
  ListSecretsResponseSchema,
  MailboxEnvelopeSchema,
  MailboxSenderSchema,
  MAX_MAILBOX_MESSAGE_CHARS,
  MAX_SECRET_BYTES,
  PostSessionMessageRequestSchema,
  PostSessionMessageResponseSchema,
  PutSecretRequestSchema,
  SecretInfoSchema,
  SecretNameSchema,
  SecretRefSchema,
  TranscriptEntrySchema,
  TranscriptEntryTypeSchema,
  TranscriptQuerySchema,
  TranscriptResponseSchema,
} from './agent-loop';
export type {
  MailboxEnvelope,
  MailboxSender,
  PostSessionMessageRequest,
  PutSecretRequest,
  SecretInfo,
  SecretRef,
  TranscriptEntry,
  TranscriptEntryType,
} from './agent-loop';
export {
  EmitEventToolInputSchema,
  GetAgentToolInputSchema,
  GetEventToolInputSchema,
  GetRunToolInputSchema,
  ListAgentsToolInputSchema,
  ListEventsToolInputSchema,
  ListRunsToolInputSchema,
  GetTranscriptToolInputSchema,
  PLATFORM_TOOL_INPUT_SCHEMAS,
  PLATFORM_TOOL_NAMES,
  RetryRunToolInputSchema,
  SendSessionMessageToolInputSchema,
  StartRunToolInputSchema,
  StopRunToolInputSchema,
} from './platform-tools';
export type {
  EmitEventToolInput,
  GetAgentToolInput,
  GetEventToolInput,
  GetRunToolInput,
  ListAgentsToolInput,
  ListEventsToolInput,
  ListRunsToolInput,
  GetTranscriptToolInput,
  PlatformToolName,
  RetryRunToolInput,
  SendSessionMessageToolInput,
  StartRunToolInput,
  StopRunToolInput,
} from './platform-tools';
export { MAX_JSON_DEPTH } from './json-bounds';
export { DeadLetterSchema, NewDeadLetterSchema } from './dead-letters';
export type { DeadLetter, NewDeadLetter } from './dead-letters';
export {
  AssistantEntryContentSchema,
  NoticeEntryContentSchema,
  parseRunState,
  RecordedEntrySchema,
  RUN_STATE_ERRORS,
  RUN_STATE_SCHEMA_VERSION,
  RunStateMessageSchema,
  RunStateNextSchema,
  RunStateSchema,
  RunStateTallySchema,
  RunStateToolCallSchema,
  SUPPORTED_RUN_STATE_VERSIONS,
  SystemEntryContentSchema,
  ToolEntryContentSchema,
  UserEntryContentSchema,
} from './run-state';
export type { RecordedEntry, RunState, RunStateMessage, RunStateNext, RunStateParseResult, RunStateTally, RunStateToolCall } from './run-state';
