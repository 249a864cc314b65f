import { AppError, ErrorCode, type RunOrigin, type TryAgentRequest, type TryAgentResponse } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import type { Logger } from '@switchyard/logging';
import type { AgentStore, StoredAgentSpec } from '../agent-ports';
import type { Principal } from '../auth-ports';
import type { FactReader } from '../fact-ports';
import type { ActivationSink, NewRun, RunStore } from '../run-ports';
import type { SettingsStore } from '../settings-ports';
import type { NewTry, TryStore } from '../try-ports';
import { actsAsAgent, assertMayImprove } from './improve-permission';
import { wakeNewRun } from './wake-new-run';

/** What TryAgent needs: only the methods it calls. */
export interface TryAgentDeps {
  tries: TryStore;
  agents: Pick<AgentStore, 'get' | 'getVersion'>;
  reader: Pick<FactReader, 'get'>;
  settings: Pick<SettingsStore, 'get'>;
  runs: Pick<RunStore, 'fail'>;
  activations: ActivationSink;
  log: Logger;
}

/** Who asks, and the id of the request (for the logs). */
export interface TryCommandContext {
  principal: Principal;
  correlationId: string;
}

const agentNotFound = (id: string) => new AppError(ErrorCode.AGENT_NOT_FOUND, 'no such agent (or draft with tries) in this workspace', { id });

/**
 * Try-drive (decision 0027): runs a draft or a saved agent once in shadow.
 * The run and its try record (the exact spec, a hand-built fact) are written
 * together, then the run is enqueued like a manual run; the runner executes
 * it with the shadow tool host. A try records no fact, so nothing it does can
 * activate an agent. An agent token tries only a saved agent whose spec
 * allows it (`selfImprovement`, decision 0058); otherwise it is refused.
 */
export class TryAgent {
  constructor(private readonly deps: TryAgentDeps) {}

  /** Tries once; `runId` is the run's id when the caller chose it (an eval's trial, written before its try). */
  async try(ctx: TryCommandContext, body: TryAgentRequest, runId: string = newId()): Promise<TryAgentResponse> {
    const { principal } = ctx;
    // An agent tries only a saved agent whose owner lets it improve that agent (decision 0058); a
    // crafting turn tries its draft for the person crafting (decision 0056): its token is theirs.
    if (actsAsAgent(principal) && body.agentId === undefined) throw new AppError(ErrorCode.TRY_BY_AGENT_REFUSED, 'an agent token tries only a saved agent that allows it (selfImprovement), never a new draft');
    if ((await this.deps.settings.get(principal.workspaceId)).agentsPaused) {
      throw new AppError(ErrorCode.AGENTS_PAUSED, 'agents are paused in this workspace (settings.agentsPaused)', { workspace: principal.workspaceSlug });
    }
    const target = await this.target(principal, body);
    const trigger = await this.trigger(principal, body);
    const origin: RunOrigin = {
      type: 'try',
      userId: principal.userId,
      ...(target.version === null ? {} : { version: target.version }),
      ...(trigger.eventId === null ? {} : { eventId: trigger.eventId }),
      ...(body.input === undefined ? {} : { input: body.input }),
    };
    const input: NewTry = {
      run: {
        id: runId,
        workspaceId: principal.workspaceId,
        agentId: target.agentId,
        agentVersion: target.version ?? 0,
        origin,
        eventId: trigger.eventId,
        eventKind: trigger.eventKind,
        eventSubject: trigger.eventSubject,
        causedBy: null,
        depth: 0,
        sessionId: newId(),
      },
      version: target.version,
      spec: target.spec,
      fact: body.fact === undefined ? null : { id: newId(), ...body.fact },
      createdBy: principal.userId,
    };
    const run = await this.deps.tries.create(input);
    await wakeNewRun(this.deps, run, 'try');
    return { runId: run.id, agentId: target.agentId, version: target.version };
  }

  /** Wakes a try run made already (its maker died before waking it; a wake of a run under way changes nothing). */
  async wake(run: { id: string; workspaceId: string; agentId: string }): Promise<void> {
    await wakeNewRun(this.deps, run, 'try');
  }

  /** What runs: a draft (of a saved agent, of an earlier draft, or new) or a saved version. */
  private async target(principal: Principal, body: TryAgentRequest): Promise<{ agentId: string; version: number | null; spec: StoredAgentSpec }> {
    const workspaceId = principal.workspaceId;
    if (body.spec) {
      const { enabled: _enabled, ...spec } = body.spec;
      if (body.agentId === undefined) return { agentId: newId(), version: null, spec };
      const saved = await this.deps.agents.get(workspaceId, body.agentId);
      if (saved) assertMayImprove(principal, saved);
      else if (actsAsAgent(principal) || !(await this.deps.tries.hasTries(workspaceId, body.agentId))) throw agentNotFound(body.agentId);
      return { agentId: body.agentId, version: null, spec };
    }
    const agentId = body.agentId!;
    const agent = await this.deps.agents.get(workspaceId, agentId);
    if (!agent) throw agentNotFound(agentId);
    assertMayImprove(principal, agent);
    if (body.version === undefined || body.version === agent.version) return { agentId, version: agent.version, spec: agent.spec };
    const found = await this.deps.agents.getVersion(workspaceId, agentId, body.version);
    if (!found.ok) throw new AppError(ErrorCode.AGENT_VERSION_NOT_FOUND, 'the agent has no such version', { id: agentId, version: body.version });
    return { agentId, version: body.version, spec: found.version.spec };
  }

  /** The recorded fact it replays, if any (of this workspace only). */
  private async trigger(principal: Principal, body: TryAgentRequest): Promise<Pick<NewRun, 'eventId' | 'eventKind' | 'eventSubject'>> {
    if (body.eventId === undefined) return { eventId: null, eventKind: null, eventSubject: null };
    const fact = await this.deps.reader.get({ id: principal.workspaceId, slug: principal.workspaceSlug }, body.eventId);
    if (!fact) throw new AppError(ErrorCode.EVENT_NOT_FOUND, 'no such event in this workspace', { id: body.eventId });
    return { eventId: fact.id, eventKind: fact.kind, eventSubject: fact.subject };
  }
}
