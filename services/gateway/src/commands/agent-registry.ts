import { AGENT_FACT_KINDS, AppError, ErrorCode, type AcceptedFact, type AgentFactKind, type EvalGateOverride } from '@switchyard/contracts';
import { agentFact, runVersionOf, specHash } from '@switchyard/core';
import { changeAuthorOf } from '../change-author';
import type { AgentRecord, AgentStore, StoredAgentSpec } from '../agent-ports';
import type { Principal } from '../auth-ports';
import type { FactFlusher } from '../fact-ports';
import type { EvalGateCheck } from './eval-gate';

/** Who asks, and the id that ties the request to the facts it records. */
export interface AgentCommandContext {
  principal: Principal;
  correlationId: string;
}

const notFound = (id: string) => new AppError(ErrorCode.AGENT_NOT_FOUND, 'no such agent in this workspace', { id });
/** `409 EVAL_GATE` for a save that would run a version no eval passed. */
const ungated = (id: string | null, version: number, suite: string, message: string) =>
  new AppError(ErrorCode.EVAL_GATE, message, { id, version, suite, evalId: null, failingCases: [] });
const nameTaken = (name: string) => new AppError(ErrorCode.AGENT_NAME_TAKEN, 'another agent of this workspace has that name', { name });

/**
 * The agent registry's writes: create, save the next version, enable or
 * disable, delete. Each names the `agent.*` facts its change announces, and
 * the store writes them in the change's transaction (decision 0024): a change
 * is never committed without its facts, which are relayed before the command
 * returns (a fact the client posts next comes after them). Refusals are
 * AppErrors with stable codes.
 */
export class AgentRegistry {
  constructor(
    private readonly agents: AgentStore,
    private readonly outbox: FactFlusher,
    /** The promotion gate enabling passes (decision 0058). */
    private readonly gate: Pick<EvalGateCheck, 'check'>,
  ) {}

  /** A new agent at version 1 (`agent.created`). */
  async create(ctx: AgentCommandContext, spec: StoredAgentSpec, enabled: boolean): Promise<AgentRecord> {
    const { principal } = ctx;
    // No eval of an agent can exist before it is saved: a gated agent is created disabled, evaluated, then enabled.
    if (enabled && spec.evalGate) throw ungated(null, 1, spec.evalGate.suite, 'a gated agent cannot be created enabled: create it disabled, run an eval, then enable it');
    const written: string[] = [];
    const created = await this.agents.create({ workspaceId: principal.workspaceId, userId: principal.userId, spec, enabled }, (agent) =>
      this.facts(ctx, written, [AGENT_FACT_KINDS.created], agent),
    );
    if (!created.ok) throw nameTaken(spec.name);
    await this.outbox.flush(written);
    return created.agent;
  }

  /**
   * The whole spec as the next version (`agent.updated`), then the flag when
   * given (`agent.enabled|disabled` if it flipped). A spec equal to the latest
   * makes no version and no `agent.updated`. A stale `ifMatch` is a conflict.
   */
  async update(ctx: AgentCommandContext, id: string, spec: StoredAgentSpec, enabled: boolean | undefined, ifMatch: number | undefined): Promise<AgentRecord> {
    const { principal } = ctx;
    const written: string[] = [];
    const result = await this.agents.update(
      { workspaceId: principal.workspaceId, id, userId: principal.userId, spec, enabled, ifMatch },
      (saved) => {
        const kinds: AgentFactKind[] = saved.versionCreated ? [AGENT_FACT_KINDS.updated] : [];
        if (saved.enabledChanged) kinds.push(saved.agent.enabled ? AGENT_FACT_KINDS.enabled : AGENT_FACT_KINDS.disabled);
        return this.facts(ctx, written, kinds, saved.agent);
      },
      (current) => this.gateUpdate(ctx, current, spec, enabled),
    );
    if (result.ok) {
      await this.outbox.flush(written);
      return result.agent;
    }
    if (result.reason === 'not_found') throw notFound(id);
    if (result.reason === 'name_taken') throw nameTaken(spec.name);
    throw new AppError(ErrorCode.AGENT_VERSION_CONFLICT, 'the agent changed since that version: read it again and retry', { id, expected: ifMatch, current: result.current });
  }

  /**
   * Sets the flag; idempotent: only an actual flip records `agent.enabled|disabled`.
   * Enabling a disabled agent passes its eval gate first (its overridden fact, if any, goes with the flip).
   */
  async setEnabled(ctx: AgentCommandContext, id: string, enabled: boolean, override?: EvalGateOverride): Promise<AgentRecord> {
    const written: string[] = [];
    let overridden: AcceptedFact | null = null;
    // Checked under the agent's row lock, with the flip: a change racing the enable cannot slip between them.
    const gate = async (current: AgentRecord) => {
      if (!current.enabled) overridden = await this.gate.check(ctx, current, runVersionOf(current), override);
    };
    const result = await this.agents.setEnabled(
      ctx.principal.workspaceId,
      id,
      enabled,
      ({ agent, changed }) => {
        if (!changed) return [];
        const items = this.facts(ctx, written, [enabled ? AGENT_FACT_KINDS.enabled : AGENT_FACT_KINDS.disabled], agent);
        if (overridden) written.push(overridden.id);
        return overridden ? [...items, { fact: overridden, correlationId: ctx.correlationId }] : items;
      },
      enabled ? gate : undefined,
    );
    if (!result) throw notFound(id);
    await this.outbox.flush(written);
    return result.agent;
  }

  /**
   * The promotion gate on a save (decision 0058): under the gate of the spec
   * saved or of the latest one, a save that would run a version nobody
   * evaluated is refused — a new version of an enabled, unpinned agent (it
   * would run at once), or `enabled: true` on a disabled one (checked like
   * `POST /enable`, without an override: use that route for one). Run by
   * the save under the agent's row lock, on the agent as it is then.
   */
  private async gateUpdate(ctx: AgentCommandContext, current: AgentRecord, spec: StoredAgentSpec, enabled: boolean | undefined): Promise<void> {
    const { id } = current;
    const gate = current.spec.evalGate ?? spec.evalGate;
    if (!gate) return;
    const runsLatest = (enabled ?? current.enabled) && current.pinnedVersion === null;
    if (runsLatest && specHash(current.spec) !== specHash(spec)) {
      throw ungated(id, current.version + 1, gate.suite, 'a new version of an enabled, unpinned, gated agent would run before any eval of it: pin the running version (or disable) first, save, run an eval, then pin or enable');
    }
    if (enabled === true && !current.enabled) await this.gate.check(ctx, { ...current, spec: { ...current.spec, evalGate: gate } }, runVersionOf(current), undefined);
  }

  /** Disables and hides the agent (`agent.deleted`); its versions and runs stay readable. */
  async delete(ctx: AgentCommandContext, id: string): Promise<void> {
    const written: string[] = [];
    const deleted = await this.agents.delete(ctx.principal.workspaceId, id, (agent) => this.facts(ctx, written, [AGENT_FACT_KINDS.deleted], { id, ...agent, enabled: false }));
    if (!deleted) throw notFound(id);
    await this.outbox.flush(written);
  }

  /**
   * The change's facts, their ids noted in `written` for the flush after the
   * commit. An agent's `pinnedVersion` goes on them (decision 0046): the
   * matcher reads from them which version runs.
   */
  private facts(ctx: AgentCommandContext, written: string[], kinds: readonly AgentFactKind[], agent: { id: string; name: string; version: number; enabled: boolean; pinnedVersion?: number | null }) {
    const author = changeAuthorOf(ctx.principal);
    const items = kinds.map((kind) => ({ fact: agentFact(author, kind, agent), correlationId: ctx.correlationId }));
    written.push(...items.map((item) => item.fact.id));
    return items;
  }
}
