export { AppError, ErrorBodySchema, ErrorCode, ErrorCodeSchema, NonRetriableError } from './errors';
export type { ErrorBody } from './errors';
export { GROUPS, STREAMS } from './streams';
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
  RoleSchema,
  StreamQuerySchema,
  StreamTicketResponseSchema,
  TokenInfoSchema,
} from './auth';
export type { CreateTokenRequest, Role, TokenInfo } from './auth';
