import { z } from 'zod';
import {
  AgentResponseSchema,
  AgentSpecSchema,
  AgentVersionResponseSchema,
  ApprovalSchema,
  DecideApprovalRequestSchema,
  ListApprovalsResponseSchema,
  StopRunRequestSchema,
  StopRunResponseSchema,
  CreatedTokenSchema,
  CreateTokenRequestSchema,
  ErrorBodySchema,
  EventActivationsResponseSchema,
  FactSchema,
  FilterMissSchema,
  FilterNodeSchema,
  JsonValueSchema,
  ListAgentsResponseSchema,
  ListAgentVersionsResponseSchema,
  ListEventsResponseSchema,
  ListRunsResponseSchema,
  ListSecretsResponseSchema,
  ListTokensResponseSchema,
  PostEventBatchRequestSchema,
  PostEventBatchResponseSchema,
  PostEventRequestSchema,
  PostEventResponseSchema,
  PostSessionMessageRequestSchema,
  PostSessionMessageResponseSchema,
  PutSecretRequestSchema,
  RunSchema,
  SecretInfoSchema,
  StartRunRequestSchema,
  StreamTicketResponseSchema,
  TranscriptResponseSchema,
  RunTraceSchema,
  TraceSpanSchema,
  WhoAmIResponseSchema,
  PutSettingsRequestSchema,
  WorkspaceSettingsSchema,
  CreateUiSessionRequestSchema,
  UiSessionResponseSchema,
  ListAgentTriesResponseSchema,
  RunWouldHaveResponseSchema,
  TryAgentRequestSchema,
  EnableAgentRequestSchema,
  SaveEvalSuiteRequestSchema,
  EvalSuiteSchema,
  StartEvalRequestSchema,
  EvalRunSchema,
  ApprovalDetailSchema,
  CraftMessageRequestSchema,
  CraftEventSchema,
  EvalStreamEventSchema,
  EvalGateStateSchema,
  TryAgentResponseSchema,
  CollaboratorSchema,
  CreateTaskRequestSchema,
  ListCollaboratorsResponseSchema,
  ListTasksResponseSchema,
  PutCollaboratorRequestSchema,
  TaskSchema,
  UpdateTaskRequestSchema,
  NotificationSettingsSchema,
  NotificationTestRequestSchema,
  NotificationTestResponseSchema,
  MattermostLinkCodeResponseSchema,
  ListTeammatesResponseSchema,
  ListTeamsResponseSchema,
  TeamDetailSchema,
  PostTeammateMessageRequestSchema,
  PostTeammateMessageResponseSchema,
  SpawnTeammateRequestSchema,
  TeammateSchema,
  ListWebhooksResponseSchema,
  CreateScheduleRequestSchema,
  BackfillBatchSchema,
  BackfillRequestSchema,
  BackfillResponseSchema,
  BackfillStopResponseSchema,
  UpdateScheduleRequestSchema,
  ScheduleSchema,
  ScheduleFireSchema,
  ListSchedulesResponseSchema,
  ListScheduleFiresResponseSchema,
  PutWebhookRequestSchema,
  WebhookSchema,
  AuditActorsResponseSchema,
  AuditPageSchema,
  OverviewResponseSchema,
  PinAgentRequestSchema,
  ListAgentTagsResponseSchema,
  AgentVersionDiffResponseSchema,
  AgentBundleSchema,
  ImportAgentsResponseSchema,
  ListTemplatesResponseSchema,
  AdoptTemplateRequestSchema,
  AdoptTemplateResponseSchema,
  AcceptInvitationRequestSchema,
  ChangeMemberRoleRequestSchema,
  CreateInvitationRequestSchema,
  InvitationSchema,
  JoinedResponseSchema,
  ListMembersResponseSchema,
  MemberSchema,
  RedeemSignInLinkRequestSchema,
  SignInMethodsResponseSchema,
  AgentMessageContentResponseSchema,
  AgentMessageHealthSchema,
  AgentMessagePostResponseSchema,
  AgentMessagePostSchema,
  ListAgentMessagesResponseSchema,
  ListQuarantineResponseSchema,
} from '@switchyard/contracts';

/**
 * The named schemas of the document. The recursive ones (`JsonValue`,
 * `TriggerFilterNode`, `TraceSpan`) are named too: a recursive schema must be a component
 * of its own for its `$ref`s to resolve inside `components`.
 */
const SCHEMAS = {
  Error: ErrorBodySchema,
  JsonValue: JsonValueSchema,
  TriggerFilterNode: FilterNodeSchema,
  TriggerFilterMiss: FilterMissSchema,
  Fact: FactSchema,
  EventActivationsResponse: EventActivationsResponseSchema,
  PostEventRequest: PostEventRequestSchema,
  PostEventResponse: PostEventResponseSchema,
  PostEventBatchRequest: PostEventBatchRequestSchema,
  PostEventBatchResponse: PostEventBatchResponseSchema,
  ListEventsResponse: ListEventsResponseSchema,
  CreateTokenRequest: CreateTokenRequestSchema,
  CreatedToken: CreatedTokenSchema,
  ListTokensResponse: ListTokensResponseSchema,
  WhoAmIResponse: WhoAmIResponseSchema,
  CreateUiSessionRequest: CreateUiSessionRequestSchema,
  UiSessionResponse: UiSessionResponseSchema,
  StreamTicketResponse: StreamTicketResponseSchema,
  /** The body of `POST` and `PUT /agents` (CreateAgentRequestSchema and UpdateAgentRequestSchema are this one schema). */
  AgentSpec: AgentSpecSchema,
  Agent: AgentResponseSchema,
  ListAgentsResponse: ListAgentsResponseSchema,
  AgentVersion: AgentVersionResponseSchema,
  ListAgentVersionsResponse: ListAgentVersionsResponseSchema,
  Run: RunSchema,
  ListRunsResponse: ListRunsResponseSchema,
  StartRunRequest: StartRunRequestSchema,
  WorkspaceSettings: WorkspaceSettingsSchema,
  PutSettingsRequest: PutSettingsRequestSchema,
  PutSecretRequest: PutSecretRequestSchema,
  SecretInfo: SecretInfoSchema,
  ListSecretsResponse: ListSecretsResponseSchema,
  TranscriptResponse: TranscriptResponseSchema,
  TraceSpan: TraceSpanSchema,
  RunTrace: RunTraceSchema,
  PostSessionMessageRequest: PostSessionMessageRequestSchema,
  PostSessionMessageResponse: PostSessionMessageResponseSchema,
  TryAgentRequest: TryAgentRequestSchema,
  EnableAgentRequest: EnableAgentRequestSchema,
  SaveEvalSuiteRequest: SaveEvalSuiteRequestSchema,
  EvalSuite: EvalSuiteSchema,
  ListEvalSuitesResponse: z.strictObject({ suites: z.array(EvalSuiteSchema) }),
  StartEvalRequest: StartEvalRequestSchema,
  StartEvalResponse: z.strictObject({ id: z.uuid() }),
  EvalRun: EvalRunSchema,
  EvalStreamEvent: EvalStreamEventSchema,
  EvalGateState: EvalGateStateSchema,
  ListEvalRunsResponse: z.strictObject({ evals: z.array(EvalRunSchema) }),
  CraftMessageRequest: CraftMessageRequestSchema,
  CraftEvent: CraftEventSchema,
  TryAgentResponse: TryAgentResponseSchema,
  ListAgentTriesResponse: ListAgentTriesResponseSchema,
  RunWouldHaveResponse: RunWouldHaveResponseSchema,
  Task: TaskSchema,
  CreateTaskRequest: CreateTaskRequestSchema,
  UpdateTaskRequest: UpdateTaskRequestSchema,
  ListTasksResponse: ListTasksResponseSchema,
  Collaborator: CollaboratorSchema,
  ListCollaboratorsResponse: ListCollaboratorsResponseSchema,
  PutCollaboratorRequest: PutCollaboratorRequestSchema,
  NotificationSettings: NotificationSettingsSchema,
  NotificationTestRequest: NotificationTestRequestSchema,
  NotificationTestResponse: NotificationTestResponseSchema,
  MattermostLinkCodeResponse: MattermostLinkCodeResponseSchema,
  AuditPage: AuditPageSchema,
  AuditActorsResponse: AuditActorsResponseSchema,
  Member: MemberSchema,
  ListMembersResponse: ListMembersResponseSchema,
  ChangeMemberRoleRequest: ChangeMemberRoleRequestSchema,
  CreateInvitationRequest: CreateInvitationRequestSchema,
  Invitation: InvitationSchema,
  AcceptInvitationRequest: AcceptInvitationRequestSchema,
  RedeemSignInLinkRequest: RedeemSignInLinkRequestSchema,
  JoinedResponse: JoinedResponseSchema,
  SignInMethodsResponse: SignInMethodsResponseSchema,
  Approval: ApprovalSchema,
  ApprovalDetail: ApprovalDetailSchema,
  ListApprovalsResponse: ListApprovalsResponseSchema,
  DecideApprovalRequest: DecideApprovalRequestSchema,
  StopRunRequest: StopRunRequestSchema,
  StopRunResponse: StopRunResponseSchema,
  Teammate: TeammateSchema,
  ListTeammatesResponse: ListTeammatesResponseSchema,
  ListTeamsResponse: ListTeamsResponseSchema,
  TeamDetail: TeamDetailSchema,
  SpawnTeammateRequest: SpawnTeammateRequestSchema,
  PostTeammateMessageRequest: PostTeammateMessageRequestSchema,
  PostTeammateMessageResponse: PostTeammateMessageResponseSchema,
  PutWebhookRequest: PutWebhookRequestSchema,
  Webhook: WebhookSchema,
  ListWebhooksResponse: ListWebhooksResponseSchema,
  OverviewResponse: OverviewResponseSchema,
  PinAgentRequest: PinAgentRequestSchema,
  ListAgentTagsResponse: ListAgentTagsResponseSchema,
  AgentVersionDiffResponse: AgentVersionDiffResponseSchema,
  AgentBundle: AgentBundleSchema,
  ImportAgentsResponse: ImportAgentsResponseSchema,
  AgentMessagePost: AgentMessagePostSchema,
  AgentMessagePostResponse: AgentMessagePostResponseSchema,
  ListAgentMessagesResponse: ListAgentMessagesResponseSchema,
  ListAgentMessageQuarantineResponse: ListQuarantineResponseSchema,
  AgentMessageHealth: AgentMessageHealthSchema,
  AgentMessageContentResponse: AgentMessageContentResponseSchema,
  CreateScheduleRequest: CreateScheduleRequestSchema,
  BackfillBatch: BackfillBatchSchema,
  BackfillRequest: BackfillRequestSchema,
  BackfillResponse: BackfillResponseSchema,
  BackfillStopResponse: BackfillStopResponseSchema,
  UpdateScheduleRequest: UpdateScheduleRequestSchema,
  Schedule: ScheduleSchema,
  ScheduleFire: ScheduleFireSchema,
  ListSchedulesResponse: ListSchedulesResponseSchema,
  ListScheduleFiresResponse: ListScheduleFiresResponseSchema,
  ListTemplatesResponse: ListTemplatesResponseSchema,
  AdoptTemplateRequest: AdoptTemplateRequestSchema,
  AdoptTemplateResponse: AdoptTemplateResponseSchema,
} satisfies Record<string, z.ZodType>;

/** The name of a component schema. */
export type ComponentName = keyof typeof SCHEMAS;

const COMPONENTS_PREFIX = '#/components/schemas/';

/** A reference to a component schema. */
export const schemaRef = (name: ComponentName) => ({ $ref: `${COMPONENTS_PREFIX}${name}` });

/** Where zod puts the schemas it had to define once but that have no name in the registry. */
const SHARED_ID = '__shared';

/**
 * Moves the `$defs` zod collects under `__shared` (a schema used in several
 * places, or a recursive one, that has no name in SCHEMAS) into components of
 * their own (`Shared_<def>`) and points every `$ref` at them: a `$ref` of the
 * form `#/components/schemas/__shared#/$defs/x` has two fragments and
 * resolves nowhere. SCHEMAS names every such schema today; this keeps the
 * document resolvable when a new one is added without a name.
 */
export function hoistSharedDefs(schemas: Record<string, Record<string, unknown>>): Record<string, Record<string, unknown>> {
  const shared = schemas[SHARED_ID];
  if (!shared) return schemas;
  const { [SHARED_ID]: _shared, ...named } = schemas;
  const defs = (shared.$defs ?? {}) as Record<string, Record<string, unknown>>;
  for (const [def, schema] of Object.entries(defs)) named[`Shared_${def}`] = schema;
  const prefix = `${COMPONENTS_PREFIX}${SHARED_ID}#/$defs/`;
  const text = JSON.stringify(named).replaceAll(`"$ref":"${prefix}`, `"$ref":"${COMPONENTS_PREFIX}Shared_`);
  return JSON.parse(text) as Record<string, Record<string, unknown>>;
}

/**
 * `components.schemas`: every named schema generated in one pass from a zod
 * registry, so a schema used inside another becomes a `$ref` to its component
 * (the URI mapping) instead of a copy or a `$defs` that would not resolve.
 * `io: 'input'`: the document describes what a client may send.
 */
export function componentSchemas(schemas: Record<string, z.ZodType> = SCHEMAS): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  const generated = z.toJSONSchema(registry, {
    uri: (id) => `${COMPONENTS_PREFIX}${id}`,
    io: 'input',
    unrepresentable: 'any',
  }).schemas;
  // Each schema is a component of the document, not a standalone JSON Schema
  // document: no dialect, and no `$id` (its place in the document names it).
  const components = Object.fromEntries(Object.entries(generated).map(([id, { $schema: _dialect, $id: _id, ...schema }]) => [id, schema as Record<string, unknown>]));
  return hoistSharedDefs(components);
}

/**
 * The query parameters of an operation, taken from the zod schema the route
 * parses its query with (one parameter per field; `io: 'input'`, so coerced
 * numbers and defaults show as a client writes them).
 */
export function queryParameters(schema: z.ZodObject, descriptions: Record<string, string> = {}): Array<Record<string, unknown>> {
  return Object.entries(schema.shape).map(([name, field]) => {
    const { $schema: _dialect, ...fieldSchema } = z.toJSONSchema(field as z.ZodType, { io: 'input', unrepresentable: 'any' });
    const parameter: Record<string, unknown> = { name, in: 'query', schema: fieldSchema };
    if (!(field as z.ZodType).safeParse(undefined).success) parameter.required = true;
    const description = descriptions[name] ?? fieldSchema.description;
    if (description) parameter.description = description;
    return parameter;
  });
}

/** A JSON response described by a component schema. */
export const jsonResponse = (name: ComponentName, description: string) => ({ description, content: { 'application/json': { schema: schemaRef(name) } } });

/** A required JSON request body described by a component schema. */
export const jsonBody = (name: ComponentName) => ({ required: true, content: { 'application/json': { schema: schemaRef(name) } } });

/** The error responses every authenticated operation may answer. */
export const ERROR_RESPONSES = Object.fromEntries(
  ['400', '401', '403', '404', '405', '413', '415', '429'].map((status) => [status, jsonResponse('Error', 'error')]),
);

/** A path parameter. */
export const pathParameter = (name: string, schema: Record<string, unknown>, description?: string) => ({
  name,
  in: 'path',
  required: true,
  schema,
  ...(description === undefined ? {} : { description }),
});

/** The `{ws}` of every workspace path. */
export const WS_PARAMETER = pathParameter('ws', { type: 'string' }, 'workspace slug');

/** A UUID path parameter. */
export const uuidParameter = (name: string) => pathParameter(name, { type: 'string', format: 'uuid' });

/** An OpenAPI operation (the fields this document uses; `operationId` is required here). */
export interface OpenApiOperation {
  operationId: string;
  summary: string;
  [field: string]: unknown;
}

/** The paths of the document: path template → HTTP method (lowercase) → operation. */
export type OpenApiPaths = Record<string, Record<string, OpenApiOperation>>;
