import { createHash } from 'node:crypto';
import type { AgentSpec, Fact } from '@switchyard/contracts';
import { compileFilter, type FactPredicate } from '@switchyard/core';
import type { Model, ModelInput, ModelResponse, ModelToolCall } from './model';
import { sleep } from './retry';
import { renderArguments, renderText, type JsonValue } from './script-template';

/** One declared step of a scripted agent. */
export type ScriptStep = NonNullable<AgentSpec['script']>[number];

/** Options of ScriptedModel. */
export interface ScriptedModelOptions {
  /** The agent's declared steps, in order. */
  script: readonly ScriptStep[];
  /** The activating fact; null for a manual run (steps with `when` are then skipped). */
  fact: Fact | null;
  /** A manual run's input (`{{input}}`); null for a trigger run. @defaultValue null */
  input?: string | null;
  /** A delay before each answer, to make runs take measurable time in tests and demos. @defaultValue 0 */
  stepMs?: number;
  /** Answers the run already had (a run continued by another runner): the script goes on after them. @defaultValue 0 */
  answered?: number;
  /** What steps with a `chance` draw from (the run's id): the same seed draws the same. @defaultValue '' */
  seed?: string;
}

const NO_USAGE = { inputTokens: 0, outputTokens: 0 } as const;
/** Longest deterministic summary (characters). */
const MAX_SUMMARY_CHARS = 4_000;

/**
 * `{{recall}}`: what the messages sent say after `remember:` (to the end of
 * the line), joined by `; ` — an answer computed from the conversation, so a
 * script shows whether a teammate's history reached the model (decision 0052).
 */
export function recall(messages: ModelInput['messages']): string {
  const found: string[] = [];
  for (const message of messages) {
    if (message.role !== 'user' || !message.content) continue;
    for (const match of message.content.matchAll(/remember:\s*([^\n]+)/gi)) found.push(match[1]!.trim());
  }
  return found.join('; ');
}

/** The newest user message's text: what the person said last (a crafting turn's message with its canvas, decision 0056). */
function lastUserMessage(messages: ModelInput['messages']): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === 'user') return message.content;
  }
  return '';
}

/**
 * The `scripted` provider as a Model: each `complete()` answers with the next
 * step whose `when` holds over the fact, so a scripted run goes through the
 * same loop (tools, mailbox, budget, transcript) as a real model's.
 *
 * - A `tool` step answers with one tool call (id `scripted_call_<step index>`)
 *   whose arguments are the step's, templated from the fact and the input (renderArguments),
 *   as JSON text; with a `say`, that is the answer's message too.
 * - A `say`-only step answers with the message and no tool calls; it is
 *   `final` only when no later step applies, so a script runs to its end.
 * - Once the script is exhausted, every call answers with the last message
 *   said (or the empty string) and no tool calls.
 *
 * It ignores what it is sent (messages and tools), but for `{{recall}}` in a
 * `say` and a step's `heard` (a regular expression over the newest user
 * message: a crafting script answers what the person said), and reports 0 tokens. A
 * run continued after its last step resumes the script where it was
 * (`answered`): which step answers depends on the fact only, so it is the same.
 */
export class ScriptedModel implements Model {
  private readonly steps: ReadonlyArray<{ step: ScriptStep; index: number; holds: FactPredicate | null; heard: RegExp | null; drawn: boolean }>;
  private next = 0;
  private lastSaid = '';

  /** Compiles every `when` up front, so a bad filter fails before the run starts. */
  constructor(private readonly options: ScriptedModelOptions) {
    this.steps = options.script.map((step, index) => ({
      step,
      index,
      holds: step.when ? compileFilter(step.when) : null,
      heard: step.heard ? new RegExp(step.heard, 'i') : null,
      drawn: drawnOf(step, index, options.seed ?? ''),
    }));
    for (let answered = 0; answered < (options.answered ?? 0); answered++) {
      const next = this.nextStep([]);
      if (!next) break;
      this.say(next.step);
    }
  }

  async complete({ messages, signal }: ModelInput): Promise<ModelResponse> {
    await sleep(this.options.stepMs ?? 0, signal);
    const next = this.nextStep(messages);
    if (!next) return { message: this.lastSaid, toolCalls: [], usage: { ...NO_USAGE }, final: true };
    await sleep(next.step.pauseMs ?? 0, signal);
    const message = this.say(next.step, messages);
    return { message, toolCalls: next.step.tool ? [this.toolCall(next.step, next.index)] : [], usage: { ...NO_USAGE }, final: !this.stepsRemain(messages) };
  }

  /**
   * The next step whose `when` holds over the fact and whose `heard` matches
   * the newest user message sent, consumed; undefined once the script is
   * exhausted. (A continued run's replay passes no messages: `heard` steps
   * are then taken as they come, like the answers the run had.)
   */
  private nextStep(messages: ModelInput['messages']): { step: ScriptStep; index: number } | undefined {
    while (this.next < this.steps.length) {
      const candidate = this.steps[this.next++]!;
      if (!this.applies(candidate, messages)) continue;
      return candidate;
    }
    return undefined;
  }

  /** Whether a step answers now: its `when` over the fact (which never changes in a run), its `heard` over what the person said last. */
  private applies({ holds, heard, drawn }: { holds: FactPredicate | null; heard: RegExp | null; drawn: boolean }, messages: ModelInput['messages']): boolean {
    const { fact } = this.options;
    if (!drawn) return false;
    if (holds && (!fact || !holds(fact))) return false;
    if (heard && messages.length > 0) return heard.test(lastUserMessage(messages));
    return true;
  }

  /**
   * A deterministic summary of a teammate's earlier turns (decision 0052):
   * the first line of every message it was given, up to MAX_SUMMARY_CHARS,
   * newest kept — so what a person told it (`remember: …`) survives. Its
   * usage is estimated at four characters a token, so that a compaction's
   * cost shows in the outcome even for the free scripted provider.
   */
  async summarize({ messages, signal }: ModelInput): Promise<ModelResponse> {
    await sleep(this.options.stepMs ?? 0, signal);
    const text = messages.at(-1)?.content ?? '';
    const lines = text.split('\n').filter((line) => /^(user|assistant|tool): /.test(line) || /remember:/i.test(line));
    let summary = lines.map((line) => line.slice(0, 200)).join('\n');
    if (summary.length > MAX_SUMMARY_CHARS) summary = summary.slice(summary.length - MAX_SUMMARY_CHARS);
    const input = messages.reduce((sum, message) => sum + (message.content ?? '').length, 0);
    return { message: summary, toolCalls: [], usage: { inputTokens: Math.ceil(input / 4), outputTokens: Math.ceil(summary.length / 4) }, final: true };
  }

  /** The step's message, rendered (null when it says nothing; `{{recall}}` over the messages sent); remembered as the last thing said. */
  private say(step: ScriptStep, messages: ModelInput['messages'] = []): string | null {
    const said = step.say?.includes('{{recall}}') ? step.say.replaceAll('{{recall}}', recall(messages)) : step.say;
    const message = said === undefined ? null : renderText(said, this.options.fact, this.options.input ?? null);
    if (message !== null) this.lastSaid = message;
    return message;
  }

  /** Whether a later step will answer to these messages (the fact never changes during a run; a tool's result is no user message). */
  private stepsRemain(messages: ModelInput['messages']): boolean {
    return this.steps.slice(this.next).some((candidate) => this.applies(candidate, messages));
  }

  private toolCall(step: ScriptStep, index: number): ModelToolCall {
    const written = (step.arguments ?? {}) as JsonValue;
    const args = step.literal ? written : renderArguments(written, this.options.fact, this.options.input ?? null);
    return { id: `scripted_call_${index}`, name: step.tool!, arguments: JSON.stringify(args) };
  }
}

/**
 * Whether a step's `chance` is drawn for this run: from the seed and the
 * step's index (SHA-256: runs with different ids draw independently, a run
 * continued elsewhere draws the same).
 */
function drawnOf(step: ScriptStep, index: number, seed: string): boolean {
  return step.chance === undefined || createHash('sha256').update(`${seed}:${index}`).digest().readUInt32BE(0) / 2 ** 32 < step.chance;
}

/**
 * The per-step delay of a scripted agent: `model.params.stepMs` (milliseconds,
 * at most 60000; anything else means 0), as the issue-3 scripted executor read it.
 */
export function scriptStepDelayMs(params: Readonly<Record<string, unknown>> | undefined): number {
  const value = params?.stepMs;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.min(value, 60_000) : 0;
}
