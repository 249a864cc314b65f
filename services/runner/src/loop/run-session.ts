import type { AgentSpec, RunState } from '@switchyard/contracts';
import { redactSecrets } from '@switchyard/core';
import type { ModelTool, Model } from '../model/model';
import type { ExecutableRun, ExecutionContext, RunContext, RunRef } from '../ports';
import { CraftToolHost, craftTurnInput, ShadowToolHost, type PlatformToolServer, type ToolDefinition, type ToolHost } from '../tools';
import { NO_SPEND } from './budget';
import type { AgentLoopOptions, ResolveSecret } from './loop-options';
import type { SpendStanding } from './loop-ports';
import { MailboxIntake } from './mailbox-intake';
import { PLAN_TOOL } from './plan-tool';
import { offersWaitTool, WAIT_TOOL } from './wait-tool';
import { firstMessage, systemPrompt, type RunTrigger } from './render';
import { RunRecorder } from './run-recorder';
import { emptyRunState, rebuildRunState } from './run-state';
import { offeredTools } from './tool-policy';
import { buildHistory, needsHead, type SessionHistory } from './session-memory';
import { isFollowedRun } from '../followed-run';

/** Everything one execution of a run holds between its steps; built by openSession and prepareSession. */
export interface RunSession {
  run: ExecutableRun;
  context: ExecutionContext;
  runContext: RunContext;
  /** Records the run's entries and holds its state. */
  recorder: RunRecorder;
  mailbox: MailboxIntake;
  /** Replaces every secret value the run resolved (and its agent token) in a text. */
  redact: (text: string) => string;
  secretValues: string[];
  model?: Model;
  host?: ToolHost;
  /** The tools offered to the model, and the same as the model is told of them. */
  tools: ToolDefinition[];
  /** Every tool a call can name: the offered ones and those a deny rule hides (a call of one is refused `tool_denied`). */
  callable: ToolDefinition[];
  modelTools: ModelTool[];
  /** Whether an agent token was minted (revoked at teardown). */
  tokenMinted: boolean;
  /** The agent's spend today and the run's with its delegation family (budget.ts), as of its last model call. */
  spend: SpendStanding;
  /** Steps taken by this execution (a fresh run's prompt is written with its first step). */
  steps: number;
  /** When this execution's running time starts (performance.now()), or restarts after a park that failed (run-duration.ts). */
  ranSince: number;
  /** The run parked on approvals or a wait: teardown leaves its mailbox open (it goes on later). */
  parked?: boolean;
  /** A teammate turn's earlier conversation (decision 0052): sent before the run's own messages. */
  history?: SessionHistory;
}

/**
 * The run's recorder, state and mailbox, with no effect yet: the state is
 * rebuilt from the run's transcript entries when its session has any (a run
 * continued by this runner), else empty (set-up writes the first messages).
 */
export async function openSession(options: AgentLoopOptions, run: ExecutableRun, context: ExecutionContext, runContext: RunContext): Promise<RunSession> {
  const secretValues: string[] = [];
  const redact = (text: string) => redactSecrets(text, secretValues);
  // A run that resolved no secret (and has no agent token) skips the round trip through JSON.
  const redactContent = <C extends Record<string, unknown>>(content: C): C => (secretValues.length === 0 ? content : (JSON.parse(redact(JSON.stringify(content))) as C));
  const state = await runStateOf(options, run, runContext);
  // A crafting turn's answer follows its transcript live (decision 0056): its flushes are announced.
  const writer = options.transcripts.open({ runId: run.id, workspaceId: run.workspaceId, sessionId: runContext.sessionId, lastSeq: runContext.transcriptSeq, followed: isFollowedRun(runContext) });
  const recorder = new RunRecorder(writer, state, redactContent);
  const mailbox = new MailboxIntake(recorder, options.mailbox, runContext.sessionId);
  const history = await historyOf(options, run, runContext);
  return {
    run,
    context,
    runContext,
    recorder,
    mailbox,
    redact,
    secretValues,
    tools: [],
    callable: [],
    modelTools: [],
    tokenMinted: false,
    spend: NO_SPEND,
    steps: 0,
    ranSince: performance.now(),
    ...(history ? { history } : {}),
  };
}

/**
 * Set-up: the model, the agent token, the tools and the spend so far; for a
 * run with nothing recorded, its first messages. May throw a ModelError (no key).
 */
export async function prepareSession(options: AgentLoopOptions, session: RunSession): Promise<void> {
  const { run, runContext, recorder } = session;
  const resolveSecret: ResolveSecret = async (name) => {
    const value = await options.secrets.read(run.workspaceId, name);
    if (value === null) throw new Error(`no workspace secret named ${name}`);
    session.secretValues.push(value);
    return value;
  };
  const trigger = toTrigger(runContext.origin, runContext.fact);
  const input = trigger.type === 'manual' ? trigger.input : null;
  session.model = await options.model(run.spec, { fact: runContext.fact, input, resolveSecret, answered: recorder.state.tally.turns, seed: run.id });
  const connect = async () => {
    const platform = await platformTools(options, session);
    // Listed, not connected: a server's session opens at the run's first call of it (decision 0012).
    return options.tools({ servers: run.spec.tools.mcpServers, workspaceId: run.workspaceId, platform, resolveSecret, signal: session.context.signal });
  };
  if (runContext.origin.type === 'craft') {
    // A crafting turn's own tools need no listing: its agent token and platform connection wait for its first try (decision 0056).
    session.host = new CraftToolHost(connect, runContext.origin);
  } else {
    const connected = await connect();
    session.host = runContext.origin.type === 'try' ? new ShadowToolHost(connected.host) : connected.host;
    for (const notice of connected.notices) recorder.add('notice', { code: notice.error.code, message: `${notice.server}: ${notice.error.message}` });
  }
  offerTools(session);
  const system = systemPrompt(run.spec.instructions);
  const first = firstMessage(run.spec.task, trigger);
  const fresh = recorder.state.conversation.length === 0;
  // A teammate's later turn goes on after its history's head (decision 0052), unless its prompt changed.
  if (fresh && needsHead(session.history, system, first)) {
    recorder.add('system', { text: system });
    recorder.add('user', { text: first, from: trigger.type === 'fact' ? { type: 'event', eventId: trigger.fact.id } : { type: trigger.type } });
  }
  // A crafting turn's message comes after the conversation so far, like a teammate's mail (decision 0056).
  if (fresh && runContext.origin.type === 'craft') recorder.add('user', { text: craftTurnInput(runContext.origin), from: { type: 'craft', userId: runContext.origin.userId } });
  // A model without a price costs nothing: its runs need not read the spend (a delegated run's parents' included).
  if (options.prices.priceOf(run.spec.model.name)) session.spend = await options.spend.standing({ runId: run.id, agentId: run.agentId });
}

/** The mode the run's calls are judged in: the spec's, or after an approved plan its `afterPlan` mode (the run state knows). */
export function effectiveMode(session: RunSession): AgentSpec['permissionMode'] {
  return session.recorder.state.permissionMode ?? session.run.spec.permissionMode;
}

/** The tools offered to the model: the host's but those a deny rule names, and in plan mode the plan tool (plan-tool.ts). */
export function offerTools(session: RunSession): void {
  const plan = effectiveMode(session) === 'plan' ? [PLAN_TOOL] : [];
  // The wait tool parks the run: offered where the spec names it and the run can park (not a try).
  if (offersWaitTool(session.run.spec.tools.platform) && session.context.parkOnWait) plan.push(WAIT_TOOL);
  session.callable = [...(session.host?.tools() ?? []), ...plan];
  session.tools = [...offeredTools(session.host?.tools() ?? [], session.run.spec), ...plan];
  session.modelTools = session.tools.map((tool) => ({ name: tool.modelName, description: tool.description, parameters: tool.inputSchema }));
}

/** The run's agent token and the platform's tools, when the agent lists any. */
async function platformTools(options: AgentLoopOptions, session: RunSession): Promise<PlatformToolServer | undefined> {
  const { run } = session;
  if (!options.platform || run.spec.tools.platform.length === 0) return undefined;
  const { origin } = session.runContext;
  const tryOf = origin.type === 'try' || origin.type === 'craft' ? origin.userId : undefined;
  const { token } = await options.platform.tokens.mint({
    workspaceId: run.workspaceId,
    runId: run.id,
    agentId: run.agentId,
    depth: run.depth,
    ttlMs: options.platform.tokenTtlMs,
    // A try's reads act as the person who tried it (the gateway lets its token read only); a crafting turn's try too.
    ...(tryOf !== undefined ? { userId: tryOf } : {}),
  });
  session.tokenMinted = true;
  session.secretValues.push(token);
  const principal = tryOf !== undefined ? `try:${run.agentId}:${tryOf}` : `agent:${run.agentId}`;
  return { url: options.platform.url, token, toolGlobs: run.spec.tools.platform, principal };
}

/**
 * Teardown, whatever the ending: the mailbox closed unless the run parked
 * (what it leaves unread becomes a notice, or waits for a teammate's next
 * turn), the transcript flushed, the tools and the model closed, the agent token revoked.
 * Each part runs even when one before it failed.
 */
export async function closeSession(options: AgentLoopOptions, session: RunSession): Promise<void> {
  const { log } = options;
  const runId = session.run.id;
  if (!session.parked) {
    const waking = await session.mailbox.closeNow(session.steps > 0).catch((error: unknown) => {
      log.warn({ err: error, runId }, 'mailbox not closed');
      return false;
    });
    // Queued before the run's ending is written: the ending's claim of the lane starts it.
    if (waking) await wakeNextTurn(options, session.run);
  }
  await session.recorder
    .flush()
    .then(() => session.mailbox.settle())
    .catch((error: unknown) => log.warn({ err: error, runId }, 'transcript flush failed'));
  await session.host?.close().catch((error: unknown) => log.warn({ err: error, runId }, 'closing the tools failed'));
  session.model?.close?.();
  if (session.tokenMinted) {
    await options.platform!.tokens.revoke(runId).catch((error: unknown) => log.error({ err: error, runId }, 'agent token not revoked; it expires by itself'));
  }
}

/**
 * The teardown of a run that ended without its loop (failed `runner_lost`:
 * its runner died), as its own ending would have closed its mailbox: the
 * messages its transcript holds are deleted (delivered once), and what it
 * never read becomes a notice — or, for a teammate, waits for its next turn,
 * queued here. Returns that turn's id (for the caller to claim), or null.
 */
export async function abandonSession(options: AgentLoopOptions, run: Pick<RunRef, 'id' | 'workspaceId' | 'workspaceSlug'>): Promise<string | null> {
  const context = await options.contexts.context(run);
  if (!context) return null;
  const state = await runStateOf(options, run, context);
  await options.mailbox.discard(context.sessionId, state.envelopeIds);
  const writer = options.transcripts.open({ runId: run.id, workspaceId: run.workspaceId, sessionId: context.sessionId, lastSeq: context.transcriptSeq });
  const recorder = new RunRecorder(writer, state);
  const intake = new MailboxIntake(recorder, options.mailbox, context.sessionId);
  const waking = await intake.closeNow();
  await recorder.flush();
  await intake.settle();
  return waking ? wakeNextTurn(options, run) : null;
}

/** The run's state: rebuilt from its entries when it has any (it executed before), else empty — a new run, a teammate's next turn too, reads nothing. */
async function runStateOf(options: AgentLoopOptions, run: Pick<RunRef, 'id' | 'workspaceId'>, context: RunContext): Promise<RunState> {
  return context.continued ? rebuildRunState(run.id, await options.transcripts.entries({ runId: run.id, workspaceId: run.workspaceId })) : emptyRunState(run.id);
}

/** A teammate turn's earlier conversation (decision 0052); undefined for every other run, or without a history store. */
async function historyOf(options: AgentLoopOptions, run: Pick<RunRef, 'id' | 'workspaceId'>, context: RunContext): Promise<SessionHistory | undefined> {
  const { origin } = context;
  if (!options.memory || (origin.type !== 'teammate' && origin.type !== 'craft')) return undefined;
  // A crafting conversation (decision 0056) is one like a teammate's, with the memory defaults (no teammate row).
  const teammateId = origin.type === 'teammate' ? origin.teammateId : NO_TEAMMATE;
  const read = await options.memory.history({ runId: run.id, workspaceId: run.workspaceId, sessionId: context.sessionId, teammateId });
  return buildHistory(read);
}

/** The teammate's next turn for what a turn left unread; a failure is left to the runner's sweep of open mailboxes. */
async function wakeNextTurn(options: AgentLoopOptions, run: { id: string; workspaceId: string }): Promise<string | null> {
  if (!options.teammates) return null;
  return options.teammates.after(run).catch((error: unknown) => {
    options.log.warn({ err: error, runId: run.id }, "teammate's next turn not queued; the sweep will");
    return null;
  });
}

/** A teammate id no row has: a crafting conversation's history reads the memory defaults. */
const NO_TEAMMATE = '00000000-0000-0000-0000-000000000000';

/** What woke the run, for its first message; a retry of a manual run, and a try, carry their input. */
function toTrigger(origin: RunContext['origin'], fact: RunContext['fact']): RunTrigger {
  if (fact) return { type: 'fact', fact };
  if ((origin.type === 'manual' || origin.type === 'retry' || origin.type === 'try') && typeof origin.input === 'string') return { type: 'manual', input: origin.input };
  return { type: 'none' };
}
