import type { AgentSpec, Fact } from '@switchyard/contracts';
import { redactSecrets } from '@switchyard/core';
import type { Logger } from '@switchyard/logging';
import type { AgentTokens } from '../agent-token-port';
import { ModelError, type ChatMessage, type Model, type ModelTool } from '../model/model';
import type { PriceTable } from '../model/prices';
import type { ExecutableRun, ExecutionContext, ExecutionResult, Executor, HeadStart, RunRef, StartedRun } from '../ports';
import type { PlatformToolServer, ToolHost, ToolServerNotice } from '../tools';
import type { LoopMetrics, RunContextStore, SecretReader, SpendLedger, TranscriptStore, TranscriptWriter, Mailbox, MailboxDrain } from './loop-ports';
import { firstMessage, systemPrompt, type RunTrigger } from './render';
import { RunTally } from './run-tally';
import { callTools } from './tool-calls';
import { offeredTools } from './tool-policy';
import { MailboxIntake } from './mailbox-intake';

/** What the loop needs to reach a run's secrets. */
export type ResolveSecret = (name: string) => Promise<string>;

/** Constructor arguments of AgentLoop. */
export interface AgentLoopOptions {
  contexts: RunContextStore;
  transcripts: TranscriptStore;
  mailbox: Mailbox;
  spend: SpendLedger;
  secrets: SecretReader;
  prices: PriceTable;
  /** The run's model (createModel with the runner's environment bound). */
  model(spec: AgentSpec, input: { fact: Fact | null; input: string | null; resolveSecret: ResolveSecret }): Promise<Model>;
  /** The run's tools (connectTools with the runner's options bound). */
  tools(input: {
    servers: AgentSpec['tools']['mcpServers'];
    platform?: PlatformToolServer;
    resolveSecret: ResolveSecret;
    signal: AbortSignal;
  }): Promise<{ host: ToolHost; notices: ToolServerNotice[] }>;
  /** The platform's own tools (the gateway's `/mcp`, with a token per run); absent: none. */
  platform?: { url: string; tokens: AgentTokens; tokenTtlMs: number };
  /** Model and tool call counters. @defaultValue none */
  metrics?: LoopMetrics;
  log: Logger;
}

/** Stable codes a run of the loop fails with (besides the model's and `runner_lost`). */
export const LOOP_ERRORS = {
  maxTurns: 'max_turns_reached',
  budget: 'budget_exceeded',
  contextMissing: 'run_context_missing',
  aborted: 'aborted',
} as const;

/**
 * The agent loop — one implementation for every run, whatever its model:
 * system = the agent's instructions; first user message = the standing task
 * and what woke the agent; then up to `maxTurns` steps of model → tool calls
 * → results → drain of the session's mailbox. Stop requests and the kill
 * switch are honoured between steps; budgets are checked before and after
 * every model call, so a run goes over a cap by at most one call. A run
 * closes its session's mailbox as it ends: one that completes takes another
 * step for messages that arrived during its last one; any other ending
 * records what it leaves unread as a notice (MailboxIntake). Every
 * message, tool call and usage goes to the transcript, flushed once per step.
 * Tool results and others' messages reach the model as delimited data, never
 * in the system prompt (render.ts).
 */
export class AgentLoop implements Executor {
  constructor(private readonly options: AgentLoopOptions) {}

  /**
   * The first step's mailbox drain, started before the run holds its slot: a
   * read, whose entries leave the mailbox only once the run recorded them
   * (MailboxIntake), so a run that then does not execute loses nothing.
   */
  headStart(run: StartedRun): HeadStart {
    return this.options.mailbox.drain(run.context.sessionId, undefined);
  }

  async execute(run: ExecutableRun, context: ExecutionContext): Promise<ExecutionResult> {
    const { options } = this;
    const runContext = run.context ?? (await options.contexts.context(run));
    if (!runContext) return { status: 'failed', error: { code: LOOP_ERRORS.contextMissing, message: 'the run is not in the ledger any more' } };
    const secretValues: string[] = [];
    const resolveSecret: ResolveSecret = async (name) => {
      const value = await options.secrets.read(run.workspaceId, name);
      if (value === null) throw new Error(`no workspace secret named ${name}`);
      secretValues.push(value);
      return value;
    };
    const redact = (text: string) => redactSecrets(text, secretValues);
    const transcript = redactingWriter(
      options.transcripts.open({ runId: run.id, workspaceId: run.workspaceId, sessionId: runContext.sessionId, lastSeq: runContext.transcriptSeq }),
      redact,
      secretValues,
    );
    const tally = new RunTally(run.spec.model.name, options.prices, run.spec.model.provider === 'scripted');
    const messages: ChatMessage[] = [];
    const mailbox = new MailboxIntake(messages, transcript, options.mailbox, runContext.sessionId);
    let host: ToolHost | undefined;
    let tokenMinted = false;
    try {
      const trigger = toTrigger(runContext.origin, runContext.fact);
      const input = trigger.type === 'manual' ? trigger.input : null;
      const model = await options.model(run.spec, { fact: runContext.fact, input, resolveSecret });
      let platform: PlatformToolServer | undefined;
      if (options.platform && run.spec.tools.platform.length > 0) {
        const { token } = await options.platform.tokens.mint({
          workspaceId: run.workspaceId,
          runId: run.id,
          agentId: run.agentId,
          depth: run.depth,
          ttlMs: options.platform.tokenTtlMs,
        });
        tokenMinted = true;
        secretValues.push(token);
        platform = { url: options.platform.url, token, toolGlobs: run.spec.tools.platform };
      }
      const connected = await options.tools({ servers: run.spec.tools.mcpServers, platform, resolveSecret, signal: context.signal });
      host = connected.host;
      for (const notice of connected.notices) transcript.add('notice', { code: notice.error.code, message: `${notice.server}: ${notice.error.message}` });
      const tools = offeredTools(host.tools(), run.spec);
      const modelTools: ModelTool[] = tools.map((tool) => ({ name: tool.modelName, description: tool.description, parameters: tool.inputSchema }));
      const system = systemPrompt(run.spec.instructions);
      const first = firstMessage(run.spec.task, trigger);
      messages.push({ role: 'system', content: system }, { role: 'user', content: first });
      transcript.add('system', { text: system });
      transcript.add('user', { text: first, from: trigger.type === 'fact' ? { type: 'event', eventId: trigger.fact.id } : { type: trigger.type } });
      // A model without a price costs nothing: its runs need not read the day's spend.
      let dayTotal = options.prices.priceOf(run.spec.model.name) ? await options.spend.spentToday(run.agentId) : 0;
      for (let boundary = 0; ; boundary++) {
        // The step boundary, in one round of independent I/O: write what the last step added to
        // the transcript, ask whether the run must stop, and drain the mailbox (messages sent
        // before the run started are read before its first turn). The prompt alone is not
        // written before the first model call: it goes with the first answer, one INSERT less
        // per run (decision 0016).
        const [, stop, drain] = await Promise.all([
          boundary === 0 ? undefined : transcript.flush(),
          context.shouldStop(),
          // The head start is this very drain (the session's, from its start), read already.
          boundary === 0 && context.headStart ? (context.headStart as Promise<MailboxDrain>) : options.mailbox.drain(runContext.sessionId, mailbox.cursor),
        ]);
        // The previous drain's envelopes are in the transcript now: they may leave the mailbox.
        await mailbox.settle();
        if (context.signal.aborted) return tally.failed(LOOP_ERRORS.aborted, String(context.signal.reason ?? 'aborted'));
        if (stop) return { status: 'cancelled', reason: stop, outcome: tally.outcome() };
        mailbox.absorb(drain);
        if (tally.turns >= run.spec.budget.maxTurns) return this.fail(transcript, tally, LOOP_ERRORS.maxTurns, `the run reached maxTurns (${run.spec.budget.maxTurns})`);
        const over = overBudget(run.spec.budget, { runUsd: tally.costUsd, dayUsd: dayTotal, tokens: tally.tokens }, 'reached');
        if (over) return this.fail(transcript, tally, LOOP_ERRORS.budget, over);
        const response = await this.complete(model, run.spec.model, { messages, tools: modelTools, signal: context.signal });
        const cost = tally.turn(response);
        options.metrics?.modelCall({
          ...modelLabels(run.spec.model),
          tokensIn: response.usage.inputTokens,
          tokensOut: response.usage.outputTokens,
          costUsd: cost.usd,
          durationMs: response.durationMs,
        });
        if (cost.usd > 0) dayTotal = await options.spend.add({ agentId: run.agentId, workspaceId: run.workspaceId, usd: cost.usd });
        transcript.add('assistant', {
          text: response.message,
          toolCalls: response.toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments })),
          usage: { ...response.usage },
          costUsd: cost.usd,
          ...(cost.priced ? {} : { unpriced: true }),
        });
        messages.push({ role: 'assistant', content: response.message, toolCalls: response.toolCalls });
        if (response.message) tally.said(response.message);
        const overAfter = overBudget(run.spec.budget, { runUsd: tally.costUsd, dayUsd: dayTotal, tokens: tally.tokens }, 'exceeded');
        if (overAfter) return this.fail(transcript, tally, LOOP_ERRORS.budget, overAfter);
        if (response.toolCalls.length > 0) {
          await callTools({ calls: response.toolCalls, host, tools, spec: run.spec, signal: context.signal, messages, transcript, tally, redact, metrics: options.metrics });
        }
        // A final answer closes the mailbox, unless messages came during this step: the model sees them first.
        if ((response.final ?? response.toolCalls.length === 0) && (await this.closeMailbox(mailbox, run.id))) {
          await transcript.flush();
          return { status: 'completed', outcome: tally.outcome() };
        }
      }
    } catch (error) {
      if (error instanceof ModelError) return this.fail(transcript, tally, error.code, redact(error.message));
      throw error;
    } finally {
      // Any other ending closes the mailbox too; what it leaves unread becomes a notice, flushed here.
      await mailbox.closeNow().catch((error: unknown) => options.log.warn({ err: error, runId: run.id }, 'mailbox not closed'));
      await transcript
        .flush()
        .then(() => mailbox.settle())
        .catch((error: unknown) => options.log.warn({ err: error, runId: run.id }, 'transcript flush failed'));
      await host?.close().catch((error: unknown) => options.log.warn({ err: error, runId: run.id }, 'closing the tools failed'));
      if (tokenMinted) {
        await options.platform!.tokens.revoke(run.id).catch((error: unknown) => options.log.error({ err: error, runId: run.id }, 'agent token not revoked; it expires by itself'));
      }
    }
  }

  /**
   * A run that ended without its loop (failed `runner_lost`: its runner died):
   * closes its session's mailbox and records what was left unread in its
   * transcript, as its own ending would have.
   */
  async abandoned(run: Pick<RunRef, 'id' | 'workspaceId' | 'workspaceSlug'>): Promise<void> {
    const context = await this.options.contexts.context(run);
    if (!context) return;
    const transcript = this.options.transcripts.open({ runId: run.id, workspaceId: run.workspaceId, sessionId: context.sessionId, lastSeq: context.transcriptSeq });
    const intake = new MailboxIntake([], transcript, this.options.mailbox, context.sessionId);
    await intake.closeNow();
    await transcript.flush();
    await intake.settle();
  }

  /**
   * The completing run's last drain and close. Redis failing here does not
   * fail work that is done: the run completes, and `finally` tries the close again.
   */
  private closeMailbox(mailbox: MailboxIntake, runId: string): Promise<boolean> {
    return mailbox.closeIfDrained().catch((error: unknown) => {
      this.options.log.warn({ err: error, runId }, 'mailbox not closed with the last drain');
      return true;
    });
  }

  /** One model call, timed, with its failure counted by code. */
  private async complete(model: Model, spec: AgentSpec['model'], input: Parameters<Model['complete']>[0]) {
    const started = performance.now();
    try {
      const response = await model.complete(input);
      return { ...response, durationMs: performance.now() - started };
    } catch (error) {
      if (error instanceof ModelError) this.options.metrics?.modelError({ ...modelLabels(spec), code: error.code });
      throw error;
    }
  }

  private fail(transcript: TranscriptWriter, tally: RunTally, code: string, message: string): ExecutionResult {
    transcript.add('notice', { code, message });
    return tally.failed(code, message);
  }
}

/** The metric labels of the run's model. */
function modelLabels(model: AgentSpec['model']): { provider: string; model: string } {
  return { provider: model.provider, model: model.name };
}

/** What woke the run, for its first message; a retry of a manual run carries its input. */
function toTrigger(origin: { type: string; input?: string }, fact: Fact | null): RunTrigger {
  if (fact) return { type: 'fact', fact };
  if ((origin.type === 'manual' || origin.type === 'retry') && typeof origin.input === 'string') return { type: 'manual', input: origin.input };
  return { type: 'none' };
}

/**
 * Why the budget stops the run now, or undefined while it holds. Before a
 * model call a cap that is `reached` stops the run (the call would go over);
 * after one, only a cap `exceeded` does (spending exactly the cap is within it).
 * The token cap counts input and output tokens, so it holds for unpriced models.
 */
function overBudget(
  budget: AgentSpec['budget'],
  { runUsd, dayUsd, tokens }: { runUsd: number; dayUsd: number; tokens: number },
  when: 'reached' | 'exceeded',
): string | undefined {
  const over = (spent: number, cap: number) => (when === 'reached' ? spent >= cap : spent > cap);
  if (budget.maxTokens !== undefined && over(tokens, budget.maxTokens)) return `the run used ${tokens} tokens; its maxTokens cap is ${budget.maxTokens}`;
  if (over(runUsd, budget.perRunUsd)) return `the run spent ${runUsd.toFixed(6)} USD; its perRunUsd cap is ${budget.perRunUsd}`;
  if (over(dayUsd, budget.perDayUsd)) return `the agent spent ${dayUsd.toFixed(6)} USD today (UTC); its perDayUsd cap is ${budget.perDayUsd}`;
  return undefined;
}

/**
 * A writer whose entries have the run's secret values replaced, whatever field
 * they hide in. A run that resolved no secret (and has no agent token) skips
 * the round trip through JSON.
 */
function redactingWriter(writer: TranscriptWriter, redact: (text: string) => string, secretValues: readonly string[]): TranscriptWriter {
  return {
    add: (type, content) =>
      writer.add(type, secretValues.length === 0 ? content : (JSON.parse(redact(JSON.stringify(content))) as Record<string, unknown>)),
    flush: () => writer.flush(),
    take: () => writer.take(),
  };
}

