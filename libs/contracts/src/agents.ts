import { AwarenessModeSchema } from './agent-messages';
import { z } from 'zod';
import { AgentApprovalsSchema } from './approvals';
import { JsonValueSchema } from './json-value';
import { WorkspaceSlugSchema } from './facts';
import { SecretNameSchema, SecretRefSchema } from './agent-loop';
import { TriggerFilterSchema, TriggerSchema } from './trigger-filter';
import { MAX_AGENT_CONCURRENCY } from './run-vocabulary';

/**
 * The shape of a stored agent spec (`agent_versions.schema_version`). Readers
 * parse a stored spec with the schema of its version.
 *
 * Changelog:
 * - 1: first version (issue 3). `script` steps are provisional; the agent-loop
 *   issue refines them and bumps this.
 */
export const AGENT_SPEC_SCHEMA_VERSION = 1;
/** Spec schema versions this code can read. */
export const SUPPORTED_AGENT_SPEC_SCHEMA_VERSIONS: readonly number[] = [1];

/** Largest serialized spec: bounds storage, list responses and what a run loads. */
export const MAX_AGENT_SPEC_BYTES = 256 * 1024;

/** Most triggers per agent; the matcher's per-fact work grows with them. */
export const MAX_AGENT_TRIGGERS = 20;

/** Agent names: lowercase words joined by `-` or `_`, used to address an agent. */
export const AgentNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$/, 'name is lowercase letters, digits, - and _, starting and ending with a letter or digit');

/**
 * A glob over tool names (`*` any run of characters), as used by `tools.platform`
 * and `rules`: `events.*`, `github.create_*`, `*`.
 */
export const ToolNameGlobSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.:/*-]+$/, 'tool-name globs are letters, digits, _ . : / - and *');

const boundedJsonRecord = (maxBytes: number) =>
  z
    .record(z.string().max(100), JsonValueSchema)
    .refine((value) => Buffer.byteLength(JSON.stringify(value), 'utf8') <= maxBytes, {
      message: `larger than ${maxBytes} bytes serialized`,
    });

/** Highest `model.rateLimit` value a spec may set (per minute); beyond any provider's published tier. */
export const MAX_MODEL_RATE_PER_MINUTE = 100_000_000;

/**
 * The provider's limits for this model's key (decision 0060): the runners share one token bucket per
 * provider key in Redis and space the calls to stay under them. Each field replaces the runner's
 * MODEL_REQUESTS_PER_MINUTE / MODEL_TOKENS_PER_MINUTE; unset, the runner's applies (or none).
 */
export const ModelRateLimitSchema = z
  .strictObject({
    /** Model calls a minute, all runners together. */
    requestsPerMinute: z.number().int().min(1).max(MAX_MODEL_RATE_PER_MINUTE).optional(),
    /** Tokens (prompt and completion) a minute, all runners together. */
    tokensPerMinute: z.number().int().min(1).max(MAX_MODEL_RATE_PER_MINUTE).optional(),
  })
  .refine((limit) => limit.requestsPerMinute !== undefined || limit.tokensPerMinute !== undefined, { message: 'a rate limit sets requestsPerMinute or tokensPerMinute' });
export type ModelRateLimit = z.infer<typeof ModelRateLimitSchema>;

/** Which model drives the agent. `scripted` replays `script` (tests, demos). */
export const AgentModelSchema = z.strictObject({
  provider: z.enum(['openai', 'scripted']),
  /** The provider's model name, e.g. `gpt-4.1-mini`. */
  name: z.string().min(1).max(200).regex(/^[A-Za-z0-9._:/-]+$/, 'model name is letters, digits and . _ : / -'),
  /** Provider parameters passed through (temperature, …); at most 8 KiB. */
  params: boundedJsonRecord(8 * 1024).optional(),
  /** OpenAI-compatible endpoint (with `/v1`); defaults to the runner's OPENAI_BASE_URL. A private or loopback address needs the runner's RUNNER_MODEL_ALLOW_PRIVATE (docs/models.md). */
  baseUrl: z.url({ protocol: /^https?$/ }).max(2_000).optional(),
  /** The workspace secret holding the API key; defaults to the runner's OPENAI_API_KEY. */
  apiKeySecret: SecretNameSchema.optional(),
  /** The provider's rate limit for this model's key, shared by every runner (decision 0060). */
  rateLimit: ModelRateLimitSchema.optional(),
});

/**
 * One step of the scripted model: say something, call a tool, or both. String
 * arguments are templates over the activating fact (`{{event.subject.id}}`,
 * `{{event.payload.failures}}`); `when` (the trigger filter language, over the
 * fact) skips the step when it does not hold; `chance` skips it at random,
 * seeded by the run (so a continued run draws the same). The last `say` is the
 * run's final message.
 */
export const ScriptStepSchema = z
  .strictObject({
    say: z.string().max(8_000).optional(),
    tool: z.string().min(1).max(200).optional(),
    /** The tool's arguments; at most 16 KiB. */
    arguments: boundedJsonRecord(16 * 1024).optional(),
    when: TriggerFilterSchema.optional(),
    /** The probability the step applies, drawn once per run from the run's id (seeded nondeterminism for evals' tests). @defaultValue 1 */
    chance: z.number().min(0).max(1).optional(),
    /**
     * A regular expression the newest user message the model is sent must match, else the step
     * is skipped (a crafting script answers what the person said, decision 0056). @defaultValue unset (any)
     */
    heard: z
      .string()
      .min(1)
      .max(500)
      .refine((pattern) => {
        try {
          new RegExp(pattern);
          return true;
        } catch {
          return false;
        }
      }, 'not a regular expression')
      .optional(),
    /** Milliseconds this step waits before it answers, on top of `model.params.stepMs`. @defaultValue 0 */
    pauseMs: z.number().int().min(0).max(60_000).optional(),
    /** The arguments are sent as written, placeholders and all (a crafting script writing another agent's script). @defaultValue false */
    literal: z.boolean().optional(),
  })
  .refine((step) => step.say !== undefined || step.tool !== undefined, { message: 'a step says something or calls a tool' })
  .refine((step) => step.arguments === undefined || step.tool !== undefined, { message: 'arguments need a tool', path: ['arguments'] });

const McpServerNameSchema = z.string().min(1).max(64).regex(/^[a-z0-9][a-z0-9_-]*$/, 'server name is lowercase letters, digits, - and _');

/** An MCP server started as a child process (stdio transport). */
export const McpStdioServerSchema = z.strictObject({
  name: McpServerNameSchema,
  transport: z.literal('stdio'),
  command: z.string().min(1).max(1_000),
  args: z.array(z.string().max(1_000)).max(100).default([]),
});

/**
 * An MCP server reached over streamable HTTP. A header value is a literal
 * (stored and returned as given) or `{secret: name}`, a workspace secret the
 * runner decrypts for the connection only.
 */
export const McpHttpServerSchema = z.strictObject({
  name: McpServerNameSchema,
  transport: z.literal('http'),
  url: z.url({ protocol: /^https?$/ }).max(2_000),
  headers: z
    .record(z.string().min(1).max(100).regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'header names are HTTP tokens'), z.union([z.string().max(4_096).regex(/^[^\r\n]*$/, 'header values have no line breaks'), SecretRefSchema]))
    .refine((headers) => Object.keys(headers).length <= 50, { message: 'at most 50 headers' })
    .optional(),
});

/** One MCP server of an agent, by transport; names are unique within the agent. */
export const McpServerSchema = z.discriminatedUnion('transport', [McpStdioServerSchema, McpHttpServerSchema]);
export type McpServer = z.infer<typeof McpServerSchema>;

/** The tools a run may see: MCP servers and platform tools (by name glob). */
export const AgentToolsSchema = z.strictObject({
  mcpServers: z
    .array(McpServerSchema)
    .max(20)
    .default([])
    .superRefine((servers, ctx) => {
      const seen = new Set<string>();
      servers.forEach((server, index) => {
        if (seen.has(server.name)) ctx.addIssue({ code: 'custom', message: `duplicate server name ${server.name}`, path: [index, 'name'] });
        seen.add(server.name);
      });
    }),
  platform: z.array(ToolNameGlobSchema).max(100).default([]),
});

/** Tool-name globs always allowed or always denied (deny wins), before the permission mode. */
export const AgentRulesSchema = z.strictObject({
  allow: z.array(ToolNameGlobSchema).max(100).default([]),
  deny: z.array(ToolNameGlobSchema).max(100).default([]),
  /** Tools that always ask a person first, even in `auto` and `bypass` (deny still wins; allow does not loosen them). */
  ask: z.array(ToolNameGlobSchema).max(100).default([]),
});

/** The bounds of `budget.maxDurationMs`: a second to a day of running time. */
export const MIN_RUN_DURATION_MS = 1_000;
export const MAX_RUN_DURATION_MS = 86_400_000;

/** The highest `budget.maxChildren` an agent may set. */
export const MAX_CHILDREN_CAP = 50;

/** Spending limits; a run stops when one is reached. */
export const AgentBudgetSchema = z
  .strictObject({
    /** Most a single run may spend, in USD. @defaultValue 1 */
    perRunUsd: z.number().positive().max(10_000).default(1),
    /** Most all runs of the agent may spend per UTC day, in USD. @defaultValue 20 */
    perDayUsd: z.number().positive().max(100_000).default(20),
    /** Most model turns per run. @defaultValue 25 */
    maxTurns: z.number().int().min(1).max(500).default(25),
    /**
     * Most tokens (input + output, summed over its model calls) a single run
     * may use; it holds for models without a price too. @defaultValue unset (no token cap)
     */
    maxTokens: z.number().int().min(1).max(1_000_000_000).optional(),
    /**
     * Most wall-clock time a single run may spend running, in ms; time parked
     * (awaiting approvals) does not count (decision 0050).
     * @defaultValue unset (the runner's RUNNER_MAX_RUN_DURATION_MS, if set; else no limit)
     */
    maxDurationMs: z.number().int().min(MIN_RUN_DURATION_MS).max(MAX_RUN_DURATION_MS).optional(),
    /**
     * Most runs one run of this agent may delegate to (`delegate_to_agent`); past it the call is
     * refused `fan_out_cap` (decision 0059). @defaultValue unset (DEFAULT_MAX_CHILDREN, 5)
     */
    maxChildren: z.number().int().min(0).max(MAX_CHILDREN_CAP).optional(),
  })
  .refine((budget) => budget.perRunUsd <= budget.perDayUsd, { message: 'perRunUsd exceeds perDayUsd', path: ['perRunUsd'] });

/** How activations of the agent are paced (applied by the matcher and runner). */
export const AgentFlowSchema = z.strictObject({
  /** Runs of this agent at once. @defaultValue 1 */
  concurrency: z.number().int().min(1).max(MAX_AGENT_CONCURRENCY).default(1),
  /** After an activation by a kind, facts of that kind do not activate again for this long. @defaultValue 0 */
  cooldownMs: z.number().int().min(0).max(86_400_000).default(0),
  /** Most activations waiting; beyond it they are recorded `dropped`. @defaultValue 100 */
  queueCap: z.number().int().min(1).max(10_000).default(100),
  /** Matching facts within this window collapse into one activation. @defaultValue 0 (off) */
  debounceMs: z.number().int().min(0).max(3_600_000).default(0),
  /** At most `limit` activations per `periodMs`. @defaultValue unset (no throttle) */
  throttle: z
    .strictObject({
      limit: z.number().int().min(1).max(10_000),
      periodMs: z.number().int().min(1_000).max(86_400_000),
    })
    .optional(),
  /** Among queued activations of different agents, higher runs first. @defaultValue 0 */
  priority: z.number().int().min(0).max(100).default(0),
});

/**
 * The promotion gate (decision 0058): enabling the agent or pinning a version
 * needs a passing eval run of that version on `suite` with at least `trials`
 * trials per case; `allowRegression` lets a run whose verdict is `worse` pass.
 */
export const EvalGateSchema = z.strictObject({
  suite: z.uuid(),
  trials: z.number().int().min(1).max(50),
  allowRegression: z.boolean().default(false),
});
export type EvalGate = z.infer<typeof EvalGateSchema>;

/**
 * Governed self-improvement (decision 0058): whether agents may try, evaluate
 * and propose new versions of this agent with the platform tools `try_agent`,
 * `run_eval` and `save_agent` — the agent itself, and the agents `managers`
 * names. A save by an agent always parks for a person's approval.
 */
export const SelfImprovementSchema = z.strictObject({
  /** @defaultValue false */
  allow: z.boolean().default(false),
  /** Other agents (ids) allowed besides this one. @defaultValue [] */
  managers: z.array(z.uuid()).max(20).default([]),
});
export type SelfImprovement = z.infer<typeof SelfImprovementSchema>;

/** Enabling or pinning past the eval gate: an admin's recorded reason (decision 0058). */
export const EvalGateOverrideSchema = z.strictObject({ reason: z.string().trim().min(1).max(2_000) });
export type EvalGateOverride = z.infer<typeof EvalGateOverrideSchema>;

/**
 * A crafted agent, as a client writes it (`POST`/`PUT /agents`). Every save
 * becomes a new immutable version. `enabled` is agent state rather than
 * configuration: it sets the flag (on create; on update only when given) and
 * is not stored in the version.
 */
export const AgentSpecSchema = z
  .strictObject({
    name: AgentNameSchema,
    description: z.string().max(2_000).default(''),
    /** System instructions shaping every turn. */
    instructions: z.string().min(1).max(32_000),
    /** Standing task, rendered with the activating fact at the start of a run. */
    task: z.string().max(32_000).default(''),
    model: AgentModelSchema,
    /** Steps for the `scripted` provider (required with it); at most 50. */
    script: z.array(ScriptStepSchema).max(50).optional(),
    tools: AgentToolsSchema.prefault({}),
    triggers: z.array(TriggerSchema).min(1).max(MAX_AGENT_TRIGGERS),
    permissionMode: z.enum(['default', 'auto', 'bypass', 'plan']).default('default'),
    rules: AgentRulesSchema.prefault({}),
    budget: AgentBudgetSchema.prefault({}),
    flow: AgentFlowSchema.prefault({}),
    /** How this agent's parked approvals expire, and the mode a plan continues in. */
    approvals: AgentApprovalsSchema.prefault({}),
    /** Whether facts caused by this agent's own runs may activate it. @defaultValue false */
    allowSelfCause: z.boolean().default(false),
    /**
     * Peer notes (decision 0047), for the awareness pilot only: `shadow` (also when absent)
     * puts nothing into the run's context; `digest` adds a bounded summary of notes observed
     * since the run began, as untrusted data, at completed step boundaries. @defaultValue absent
     */
    awareness: AwarenessModeSchema.optional(),
    /** The promotion gate (decision 0058): enabling or pinning needs a passing eval run. @defaultValue absent (no gate) */
    evalGate: EvalGateSchema.optional(),
    /** Governed self-improvement (decision 0058). @defaultValue absent (no agent may try, evaluate or save it) */
    selfImprovement: SelfImprovementSchema.optional(),
    /** Create enabled (default true); on update, change the flag only when given. */
    enabled: z.boolean().optional(),
  })
  .superRefine((spec, ctx) => {
    if (spec.model.provider === 'scripted' && spec.script === undefined) {
      ctx.addIssue({ code: 'custom', message: 'the scripted provider needs a script', path: ['script'] });
    }
    if (Buffer.byteLength(JSON.stringify(spec), 'utf8') > MAX_AGENT_SPEC_BYTES) {
      ctx.addIssue({ code: 'custom', message: `spec is larger than ${MAX_AGENT_SPEC_BYTES} bytes serialized`, path: [] });
    }
  });
export type AgentSpec = z.infer<typeof AgentSpecSchema>;

/** `POST /v1/workspaces/{ws}/agents` body: the first version. */
export const CreateAgentRequestSchema = AgentSpecSchema;
export type CreateAgentRequest = z.infer<typeof CreateAgentRequestSchema>;

/** `PUT /v1/workspaces/{ws}/agents/{id}` body: the whole next version (not a patch). */
export const UpdateAgentRequestSchema = AgentSpecSchema;
export type UpdateAgentRequest = z.infer<typeof UpdateAgentRequestSchema>;

/** Agent ids (UUIDv7) in paths. */
export const AgentIdSchema = z.uuid();

/** A version number in a path: a positive integer written plainly (`3`, not `03` or `3.0`). */
export const AgentVersionParamSchema = z
  .string()
  .regex(/^[1-9][0-9]{0,9}$/, 'version is a positive integer')
  .transform(Number)
  .pipe(z.number().int().max(2_147_483_647));

/**
 * The `If-Match` header of `PUT /agents/{id}`: the version the client last
 * read, bare (`3`) or as the entity tag the API returns (`"3"`, `W/"3"`).
 * `*` means any version, the same as no header. Lists of tags are not accepted.
 */
export const IfMatchSchema = z
  .string()
  .trim()
  .regex(/^(?:\*|[1-9][0-9]{0,9}|(?:W\/)?"[1-9][0-9]{0,9}")$/, 'If-Match is a version number, "<version>" or *')
  .transform((value) => (value === '*' ? undefined : Number(value.replace(/^W\//, '').replaceAll('"', ''))))
  .pipe(z.number().int().max(2_147_483_647).optional());

/** An agent as the API returns it: its state and its latest version's spec. */
export const AgentResponseSchema = z.strictObject({
  id: AgentIdSchema,
  workspace: WorkspaceSlugSchema,
  /** The latest version; also sent as the `ETag` (`"<version>"`). */
  version: z.number().int().positive(),
  enabled: z.boolean(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  /** The latest version's spec with its defaults filled in (no `enabled`: see the top level). */
  spec: AgentSpecSchema,
  /**
   * The version new runs use (decision 0046: `PUT /agents/{id}/pin`); null when
   * none is pinned and runs use the latest (`version`).
   */
  pinnedVersion: z.number().int().positive().nullable(),
  /**
   * How close the agent is to its limits, on reads (`GET /agents`, `GET /agents/{id}`): its spend
   * today (UTC) against `budget.perDayUsd`, and its runs waiting against `flow.queueCap`.
   */
  usage: z
    .strictObject({
      spentTodayUsd: z.number().min(0),
      /** Runs of the agent in status `queued` (tries included: they count against the cap while they wait). */
      queuedRuns: z.number().int().min(0),
    })
    .optional(),
});
export type AgentResponse = z.infer<typeof AgentResponseSchema>;

/** `GET /v1/workspaces/{ws}/agents` query: live agents in id (creation) order. */
export const ListAgentsQuerySchema = z.strictObject({
  /** The last id of the previous page. */
  after: AgentIdSchema.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type ListAgentsQuery = z.infer<typeof ListAgentsQuerySchema>;

/** `GET /v1/workspaces/{ws}/agents` response. */
export const ListAgentsResponseSchema = z.strictObject({
  agents: z.array(AgentResponseSchema),
  /** Pass as `after` for the next page; null on the last page. */
  nextCursor: AgentIdSchema.nullable(),
});

/** One immutable version of an agent. */
export const AgentVersionResponseSchema = z.strictObject({
  agentId: AgentIdSchema,
  version: z.number().int().positive(),
  /** The user whose token saved this version. */
  createdBy: z.uuid(),
  createdAt: z.iso.datetime(),
  spec: AgentSpecSchema,
});
export type AgentVersionResponse = z.infer<typeof AgentVersionResponseSchema>;

/** A version as listed: without its spec (fetch `/versions/{n}` for that). */
export const AgentVersionSummarySchema = AgentVersionResponseSchema.omit({ spec: true }).extend({ name: AgentNameSchema });
export type AgentVersionSummary = z.infer<typeof AgentVersionSummarySchema>;

/** `GET /v1/workspaces/{ws}/agents/{id}/versions` query: versions in ascending order. */
export const ListAgentVersionsQuerySchema = z.strictObject({
  /** The last version of the previous page. */
  after: z.coerce.number().int().min(0).max(2_147_483_647).default(0),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type ListAgentVersionsQuery = z.infer<typeof ListAgentVersionsQuerySchema>;

/** `GET /v1/workspaces/{ws}/agents/{id}/versions` response. */
export const ListAgentVersionsResponseSchema = z.strictObject({
  versions: z.array(AgentVersionSummarySchema),
  /** Pass as `after` for the next page; null on the last page. */
  nextCursor: z.number().int().positive().nullable(),
});

/**
 * Kinds of the facts the registry emits, subject `{type: "agent", id}`. Each
 * names what happened: a PUT that also flips `enabled` emits `agent.updated`
 * and then `agent.enabled`/`agent.disabled`; DELETE emits only `agent.deleted`.
 */
export const AGENT_FACT_KINDS = {
  created: 'agent.created',
  updated: 'agent.updated',
  enabled: 'agent.enabled',
  disabled: 'agent.disabled',
  deleted: 'agent.deleted',
  /** A version was pinned (or the pin moved): new runs use it (decision 0046). */
  pinned: 'agent.pinned',
  /** The pin was removed: new runs use the latest version again. */
  unpinned: 'agent.unpinned',
} as const;
export type AgentFactKind = (typeof AGENT_FACT_KINDS)[keyof typeof AGENT_FACT_KINDS];

/**
 * Payload of every `agent.*` registry fact: the agent's state after the change.
 * Facts are emitted after the commit and may arrive out of order relative to
 * other changes: consumers re-read the agent rather than trust it blindly.
 */
export const AgentFactPayloadSchema = z.strictObject({
  version: z.number().int().positive(),
  name: AgentNameSchema,
  enabled: z.boolean(),
  /**
   * The pinned version after the change (decision 0046), null when none: the
   * version in force for new runs is this when set, else `version`. Absent
   * from facts recorded before pins existed.
   */
  pinnedVersion: z.number().int().positive().nullable().optional(),
});
export type AgentFactPayload = z.infer<typeof AgentFactPayloadSchema>;
