import { randomUUID } from 'node:crypto';
import express, { Router, type Express } from 'express';
import type { TemplateManifest } from '@switchyard/contracts';
import type { SecretBox } from '@switchyard/core';
import type { Logger } from '@switchyard/logging';
import { runChecks, type ReadinessCheck } from '@switchyard/runtime';
import type { Redis } from '@switchyard/redis';
import { authenticate, Authenticator } from './http/auth';
import { errorHandler, notFoundHandler } from './http/errors';
import type { GatewayMetrics } from './http/metrics';
import { methodNotAllowed } from './http/method-not-allowed';
import { rateLimit, type TokenRateLimiter } from './http/rate-limit';
import { jsonBody } from './http/json-body';
import { checkUrl } from './http/url-check';
import { DEFAULT_UI_DIR, uiStatic } from './http/ui-static';
import { mcpRoutes } from './routes/mcp';
import type { Queue } from 'bullmq';
import type { NotificationCommandDeps } from './commands/notification-settings';
import { ADMIN_QUEUES_PATH, adminQueuesApp, requireAdminToken } from './routes/admin-queues';
import { mattermostIntegrationRoutes, type MattermostIntegrationDeps } from './routes/mattermost-integration';
import { notificationRoutes } from './routes/notifications';
import { auditRoutes } from './routes/audit';
import type { AuditReader } from './audit-ports';
import type { ActivationReads } from './activation-ports';
import type { AgentStore, AgentUsageReader } from './agent-ports';
import type { ApprovalsPort } from './approval-ports';
import type { AgentTokenStore, AuthStore, UiSessionStore } from './auth-ports';
import type { FactFlusher, FactReader, IngestWriter } from './fact-ports';
import type { Mailbox, SteeringStore } from './mailbox-ports';
import type { ActivationSink, RunResumer, RunStore, TranscriptReader } from './run-ports';
import type { SecretStore } from './secret-ports';
import type { SettingsStore } from './settings-ports';
import type { TeammateStore } from './teammate-ports';
import type { TryStore } from './try-ports';
import { agentsRoutes } from './routes/agents';
import { backfillRoutes } from './routes/backfills';
import { AgentBackfills } from './commands/backfill';
import type { BackfillStore } from './backfill-ports';
import { agentVersionsRoutes } from './routes/agent-versions';
import { agentBundlesRoutes } from './routes/agent-bundles';
import { AgentVersions } from './commands/agent-versions';
import { AgentBundles } from './commands/agent-bundles';
import { Templates } from './commands/templates';
import { templatesRoutes } from './routes/templates';
import { loadTemplateCatalog } from './templates/template-catalog';
import type { AgentBundleStore, AgentVersionStore } from './version-ports';
import { approvalsRoutes } from './routes/approvals';
import { eventsRoutes } from './routes/events';
import { buildOpenApi, gatewayPaths } from './routes/openapi';
import { runsRoutes } from './routes/runs';
import { secretsRoutes } from './routes/secrets';
import { sessionsRoutes } from './routes/sessions';
import { teammatesRoutes } from './routes/teammates';
import { settingsRoutes } from './routes/settings';
import { streamRoutes } from './routes/stream';
import { CredentialWatch } from './sse/credential-watch';
import { tokensRoutes } from './routes/tokens';
import { transcriptRoutes } from './routes/transcript';
import type { SqlTraceReader } from '@switchyard/traces';
import { uiSessionRoutes } from './routes/ui-session';
import { triesRoutes } from './routes/tries';
import { TryAgent } from './commands/try-agent';
import { EvalGateCheck } from './commands/eval-gate';
import { EvalRuns } from './commands/eval-runs';
import { AgentRegistry } from './commands/agent-registry';
import { SaveAgent } from './commands/self-improvement';
import { EvalSuites } from './commands/eval-suites';
import { evalsRoutes } from './routes/evals';
import { evalStreamRoutes } from './routes/eval-stream';
import { EvalProgress } from './commands/eval-progress';
import type { EvalJudgeModel, EvalStore } from './eval-ports';
import { CraftSession, type CraftSessionDeps } from './commands/craft-session';
import { craftRoutes } from './routes/craft';
import type { CraftingModel, CraftingStore } from './craft-ports';
import { whoamiRoutes } from './routes/whoami';
import { RunLedger } from './run-ledger';
import type { FactFeed } from './sse/fact-feed';
import { CollaboratorRules } from './commands/collaborators';
import { TaskLedger } from './commands/task-ledger';
import { collaboratorsRoutes } from './routes/collaborators';
import { tasksRoutes } from './routes/tasks';
import { overviewRoutes } from './routes/overview';
import type { OpsOverviewReader } from './ops-overview-ports';
import type { CollaboratorStore, TaskStore } from './team-ports';
import { WebhookSettings } from './commands/webhooks';
import { ScheduleBook } from './commands/schedules';
import { schedulesRoutes } from './routes/schedules';
import type { ScheduleStore } from './schedule-ports';
import { webhookDeliveryRoutes, webhooksRoutes } from './routes/webhooks';
import type { WebhookStore } from './webhook-ports';
import type { MemberStore } from './member-ports';
import { membersRoutes } from './routes/members';
import type { AccessLinkStore } from './access-link-ports';
import { invitationRoutes, linkDoorRoutes } from './routes/access-links';
import type { SsoDeps } from './commands/sso-sign-in';
import { ssoRoutes } from './routes/sso';
import type { AgentMessageStore } from '@switchyard/db';
import { agentMessageProducerRoutes, agentMessageReadRoutes } from './routes/agent-messages';
import { ObservationSignal } from './sse/observation-signal';
import { ObservationBatcher } from './commands/observation-batcher';

/** Everything the HTTP app needs, as ports and plain values. */
export interface GatewayAppDeps {
  /** Relays the facts a request's change wrote before it answers. */
  outbox: FactFlusher;
  authStore: AuthStore;
  reader: FactReader;
  /** What the matcher made of a fact, per agent (GET /events/{id}/activations). */
  activationReads: ActivationReads;
  ingest: IngestWriter;
  agents: AgentStore;
  /** Agents' spend today and queued runs (shown on the agents' reads). */
  agentUsage: AgentUsageReader;
  runs: RunStore;
  settings: SettingsStore;
  /** Workspace secrets, sealed. */
  secrets: SecretStore;
  /** Seals secret values (SECRETS_KEY); null when unset, and the secrets routes answer 503. */
  secretBox: SecretBox | null;
  /** Runs' transcripts (the runner writes them). */
  transcripts: TranscriptReader;
  /** Runs as traces (decision 0057). */
  traces: Pick<SqlTraceReader, 'read'>;
  /** Sessions' runs and senders' names, for steering. */
  steering: SteeringStore;
  /** Try runs and their records (try-drive, decision 0027). */
  tries: TryStore;
  /** Eval suites, runs and trials (decision 0058). */
  evals: EvalStore;
  /** Eval cases' judge model (EVAL_JUDGE_BASE_URL); null: unset. @defaultValue null */
  evalJudge?: EvalJudgeModel | null;
  /** Sessions' mailboxes (steering writes to them). */
  mailbox: Mailbox;
  /** The teammates roster (decision 0035). */
  teammates: TeammateStore;
  /** The BullMQ queue `activations` that manual runs and retries go to. */
  activations: ActivationSink;
  /** Approvals: listed, read and decided (decision 0025). */
  approvals: ApprovalsPort;
  /** Wakes the lanes of runs a decision resumed (`activations` too). */
  resumer: RunResumer;
  feed: FactFeed;
  redis: Redis;
  prefix: string;
  log: Logger;
  metrics: GatewayMetrics;
  checks: Record<string, ReadinessCheck>;
  bodyLimitBytes: number;
  rateLimiter: TokenRateLimiter;
  ratePerSecond: number;
  tokenCacheMs: number;
  /** Agent tokens (`sya_…`), looked up on every request. */
  agentTokens: AgentTokenStore;
  /** Host names `/mcp` answers to (GATEWAY_MCP_ALLOWED_HOSTS). */
  mcpAllowedHosts: readonly string[];
  ticketTtlMs: number;
  heartbeatMs: number;
  /** STREAM_AUTH_RECHECK_MS: how often an open stream's token is looked up again. */
  streamAuthRecheckMs: number;
  /** MAX_CAUSATION_DEPTH: the cap on manual runs started by agents. */
  maxCausationDepth: number;
  /** The workspace task ledger. */
  tasks: TaskStore;
  /** Agents' collaborator rules (who may delegate to whom). */
  collaborators: CollaboratorStore;
  /** Web UI sessions (the `sy_session` cookie). */
  uiSessions: UiSessionStore;
  /** The workspaces' members (decision 0042). */
  members: MemberStore;
  /** One-time links: invitations and sign-in links (decision 0042). */
  accessLinks: AccessLinkStore;
  /** Single sign-on with OpenID Connect (OIDC_*); null or absent: not configured. */
  sso?: SsoDeps | null;
  /** PUBLIC_URL: the base of links the gateway makes; unset, the gateway as a request reached it. */
  publicUrl?: string;
  /** UI_SESSION_TTL_SECONDS. */
  uiSessionTtlSeconds: number;
  /** The built web UI (served at `/` when it holds an index.html). @defaultValue services/gateway/ui/dist */
  uiDir?: string;
  /** Notification settings and link codes (decision 0030). */
  notifications: NotificationCommandDeps;
  /** Mattermost's button callbacks and slash commands. */
  mattermost: Omit<MattermostIntegrationDeps, 'bodyLimitBytes'>;
  /** The audit trail's reads (decision 0040). */
  audit: AuditReader;
  /** The BullMQ dashboard: the operator's token and the queues shown; null: not served (decision 0033). */
  adminQueues: { token: string; queues: Queue[] } | null;
  /** Inbound webhooks (docs/webhooks.md): their store, whether `none` is allowed, and their own rate limit. */
  webhooks: { store: WebhookStore; allowUnsigned: boolean; rateLimiter: TokenRateLimiter; ratePerSecond: number };
  /** The operations overview's figures (decision 0036). */
  opsOverview: OpsOverviewReader;
  /** Pins and tags of agent versions (decision 0046). */
  agentVersions: AgentVersionStore;
  /** Agent bundles' export reads and import writes (decision 0046). */
  agentBundles: AgentBundleStore;
  /** The agent-message observation plane's store (decision 0047). */
  agentMessages: AgentMessageStore;
  /** AGENT_MESSAGE_CONTENT_RETENTION_MS. */
  contentRetentionMs: number;
  /** AGENT_MESSAGE_STREAM_POLL_MS. */
  agentMessageStreamPollMs: number;
  /** Schedules (decision 0048): their definitions and fires. */
  schedules: ScheduleStore;
  /** Conversational crafting (decision 0056): the crafting agent's model (null or absent: crafting answers 409 CRAFTING_NOT_CONFIGURED), its store, the runner's announcements of a turn's flushes and how often an answer reads its transcript anyway. */
  crafting?: { model: CraftingModel | null; store: CraftingStore; news: CraftSessionDeps['news']; pollMs: number };
  /** Backfill batches (decision 0055). */
  backfills: BackfillStore;
  /** The first-party templates (decision 0049). @defaultValue the repo's templates/ */
  templates?: TemplateManifest[];
}

/** Builds the express app: the only public door of Switchyard. */
export function createGatewayApp(deps: GatewayAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(deps.metrics.middleware);
  app.use((req, res, next) => {
    const given = req.headers['x-request-id'];
    res.locals.requestId = typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    res.setHeader('x-request-id', String(res.locals.requestId));
    next();
  });
  app.use(checkUrl);
  app.use(methodNotAllowed(gatewayPaths()));

  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/readyz', async (_req, res) => {
    const result = await runChecks(deps.checks);
    res.status(result.ok ? 200 : 503).json(result);
  });
  const openApi = buildOpenApi();
  app.get('/v1/openapi.json', (_req, res) => void res.json(openApi));

  const authenticator = new Authenticator({ store: deps.authStore, cacheMs: deps.tokenCacheMs, agentTokens: deps.agentTokens, uiSessions: deps.uiSessions });
  const ledger = new RunLedger(deps);
  const tryAgent = new TryAgent(deps);
  const evalGate = new EvalGateCheck(deps.evals);
  const evalRuns = new EvalRuns({ ...deps, tryAgent, judge: deps.evalJudge ?? null });
  const saveAgent = new SaveAgent({ ...deps, evalRuns, registry: new AgentRegistry(deps.agents, deps.outbox, evalGate) });
  const taskLedger = new TaskLedger(deps.tasks, deps.outbox);
  const collaboratorRules = new CollaboratorRules(deps.collaborators, deps.agents, deps.outbox);
  const scheduleBook = new ScheduleBook({ schedules: deps.schedules, outbox: deps.outbox });
  const webhookSettings = new WebhookSettings({ webhooks: deps.webhooks.store, secretBox: deps.secretBox, outbox: deps.outbox, allowUnsigned: deps.webhooks.allowUnsigned });
  // Governance changes name their author on the facts they record (decision 0040).
  const userName = (userId: string) => deps.steering.userName(userId);
  app.use(whoamiRoutes({ ...deps, authenticator }));
  app.use(uiSessionRoutes({ authenticator, uiSessions: deps.uiSessions, ttlSeconds: deps.uiSessionTtlSeconds, bodyLimitBytes: deps.bodyLimitBytes }));
  const linkDeps = {
    links: deps.accessLinks,
    sessions: deps.uiSessions,
    outbox: deps.outbox,
    userName,
    sessionTtlSeconds: deps.uiSessionTtlSeconds,
    publicUrl: deps.publicUrl,
    bodyLimitBytes: deps.bodyLimitBytes,
  };
  app.use(linkDoorRoutes(linkDeps));
  app.use(ssoRoutes({ sso: deps.sso ?? null, publicUrl: deps.publicUrl }));
  // One watch for every kind of stream: a credential with several streams open is looked up once per interval.
  const streamWatch = new CredentialWatch({ recheck: (credential) => authenticator.recheck(credential), intervalMs: deps.streamAuthRecheckMs, log: deps.log });
  const { tickets, stream } = streamRoutes({ ...deps, authenticator, watch: streamWatch });

  // Peer notes (decision 0047): the producers and the tool share one command; a new observation wakes this replica's streams.
  const observations = new ObservationSignal();
  const batcher = new ObservationBatcher(deps.agentMessages);
  const store = deps.agentMessages;
  const notes = {
    ...deps,
    agentMessages: { observe: batcher.observe.bind(batcher), quarantine: store.quarantine.bind(store), nextSenderSeq: store.nextSenderSeq.bind(store) },
    onObserved: (workspaceId: string) => observations.notify(workspaceId),
  };

  const workspace = Router({ mergeParams: true });
  // The stream authenticates itself (it also takes a ticket), then the rest need a bearer token.
  workspace.use(stream);
  workspace.use(authenticate(authenticator));
  workspace.use(rateLimit(deps.rateLimiter, deps.ratePerSecond));
  // Peer notes are screened on their bytes (a duplicate property is invisible once parsed): before the JSON door.
  workspace.use(agentMessageProducerRoutes(notes));
  workspace.use(jsonBody({ limitBytes: deps.bodyLimitBytes }));
  workspace.use(agentMessageReadRoutes({ ...deps, observations, watch: streamWatch, pollMs: deps.agentMessageStreamPollMs }));
  workspace.use(eventsRoutes(deps));
  workspace.use(collaboratorsRoutes({ collaboratorRules }));
  if (deps.crafting) {
    const craftSession = new CraftSession({ ...deps, model: deps.crafting.model, crafting: deps.crafting.store, news: deps.crafting.news, pollMs: deps.crafting.pollMs, registry: new AgentRegistry(deps.agents, deps.outbox, evalGate) });
    workspace.use(craftRoutes({ craftSession, heartbeatMs: deps.heartbeatMs }));
  }
  workspace.use(agentsRoutes({ ...deps, evalGate }));
  workspace.use(backfillRoutes({ backfills: new AgentBackfills({ ...deps, ledger }) }));
  workspace.use(agentVersionsRoutes({ agentVersions: new AgentVersions({ ...deps, userName, gate: evalGate }) }));
  workspace.use(agentBundlesRoutes({ agentBundles: new AgentBundles({ ...deps, userName }) }));
  workspace.use(templatesRoutes({ templates: new Templates({ ...deps, notificationStore: deps.notifications.notifications, templates: deps.templates ?? loadTemplateCatalog(), userName }) }));
  workspace.use(tasksRoutes({ taskLedger }));
  workspace.use(runsRoutes({ runs: deps.runs, ledger }));
  workspace.use(triesRoutes({ ...deps, tryAgent }));
  workspace.use(evalsRoutes({ evalSuites: new EvalSuites(deps), evalRuns, evalGate, agents: deps.agents }));
  workspace.use(evalStreamRoutes({ ...deps, evalProgress: new EvalProgress({ evals: deps.evals, evalRuns }), watch: streamWatch }));
  workspace.use(transcriptRoutes(deps));
  workspace.use(sessionsRoutes(deps));
  workspace.use(teammatesRoutes(deps));
  workspace.use(secretsRoutes({ ...deps, userName }));
  workspace.use(settingsRoutes({ ...deps, userName }));
  workspace.use(notificationRoutes(deps.notifications));
  workspace.use(approvalsRoutes({ ...deps, saveAgent }));
  workspace.use(overviewRoutes(deps));
  workspace.use(tickets);
  workspace.use(auditRoutes(deps));
  workspace.use(tokensRoutes({ store: deps.authStore, authenticator, outbox: deps.outbox, userName }));
  workspace.use(invitationRoutes(linkDeps));
  workspace.use(membersRoutes({ members: deps.members, outbox: deps.outbox, userName, forgetUser: (userId) => authenticator.forgetUser(userId) }));

  workspace.use(webhooksRoutes({ webhookSettings }));
  workspace.use(schedulesRoutes({ scheduleBook }));

  // A webhook's sender has no token: its delivery is read (as bytes) before the workspace router authenticates.
  app.use(webhookDeliveryRoutes({ ...deps.webhooks, webhooks: deps.webhooks.store, secretBox: deps.secretBox, accept: deps, bodyLimitBytes: deps.bodyLimitBytes }));
  app.use('/v1/workspaces/:ws', workspace);
  app.use(mattermostIntegrationRoutes({ ...deps.mattermost, bodyLimitBytes: deps.bodyLimitBytes }));
  if (deps.adminQueues) app.use(ADMIN_QUEUES_PATH, requireAdminToken(deps.adminQueues.token), adminQueuesApp(deps.adminQueues.queues));
  app.use('/mcp', mcpRoutes({ ...notes, authenticator, ledger, tryAgent, evalRuns, saveAgent, taskLedger, scheduleBook, allowedHosts: deps.mcpAllowedHosts }));
  const ui = uiStatic(deps.uiDir ?? DEFAULT_UI_DIR);
  if (ui) app.use(ui);
  app.use(notFoundHandler);
  app.use(errorHandler(deps.log));
  return app;
}
