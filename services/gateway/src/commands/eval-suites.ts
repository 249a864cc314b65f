import { AppError, ErrorCode, type EvalCase, type SaveEvalSuiteRequest } from '@switchyard/contracts';
import { newId } from '@switchyard/core';
import type { Principal } from '../auth-ports';
import type { EvalStore, EvalSuiteRecord } from '../eval-ports';

export const suiteNotFound = (id: string, version?: number) =>
  new AppError(ErrorCode.EVAL_SUITE_NOT_FOUND, 'no such eval suite (or version of it) in this workspace', { id, ...(version === undefined ? {} : { version }) });

/** `EVENT_NOT_FOUND` naming the first case whose recorded fact is not this workspace's (another's, or none). */
export async function checkCaseFacts(evals: Pick<EvalStore, 'knownFacts'>, workspaceId: string, cases: readonly EvalCase[]): Promise<void> {
  const ids = cases.flatMap((c) => (c.factId === undefined ? [] : [c.factId]));
  const known = await evals.knownFacts(workspaceId, ids);
  const index = cases.findIndex((c) => c.factId !== undefined && !known.has(c.factId));
  if (index >= 0) throw new AppError(ErrorCode.EVENT_NOT_FOUND, 'a case names no recorded fact of this workspace', { id: cases[index]!.factId, caseIndex: index });
}

/**
 * Eval suites (decision 0058), versioned like agents: every save is a new
 * immutable version, and an eval run names the version it ran. Each case's
 * recorded fact must be this workspace's, checked before anything is written.
 */
export class EvalSuites {
  constructor(private readonly deps: { evals: EvalStore }) {}

  /** Saves a new suite (`id` undefined) or the next version of one. */
  async save(principal: Principal, body: SaveEvalSuiteRequest, id?: string): Promise<EvalSuiteRecord> {
    await checkCaseFacts(this.deps.evals, principal.workspaceId, body.cases);
    const saved = await this.deps.evals.saveSuite({ workspaceId: principal.workspaceId, id: id ?? newId(), name: body.name, cases: body.cases, userId: principal.userId, isNew: id === undefined });
    if (!saved) throw suiteNotFound(id!);
    return saved;
  }

  async get(principal: Principal, id: string, version?: number): Promise<EvalSuiteRecord> {
    const suite = await this.deps.evals.getSuite(principal.workspaceId, id, version);
    if (!suite) throw suiteNotFound(id, version);
    return suite;
  }

  async list(principal: Principal): Promise<EvalSuiteRecord[]> {
    return this.deps.evals.listSuites(principal.workspaceId);
  }
}
