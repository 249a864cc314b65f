import { APPROVAL_FACT_KINDS, type Fact, type NotificationJob } from '@switchyard/contracts';
import { subjectKey } from '@switchyard/core';
import type { Logger } from '@switchyard/logging';
import { compileRules, matchingRules } from './notification-rules';
import type { JobSink, NotifierStore } from './ports';

/** A fact off `facts` with its workspace. */
export interface NotifierInput {
  fact: Fact;
  workspaceId: string;
}

/** What the notifier needs. */
export interface NotifierDeps {
  store: NotifierStore;
  jobs: JobSink;
  log: Logger;
}

/** The job id of a post: one per (fact, rule), so a replayed fact adds nothing new. */
export const postJobId = (factId: string, ruleId: string) => `post:${factId}:${ruleId}`;

const OUTCOME_KINDS: ReadonlySet<string> = new Set([APPROVAL_FACT_KINDS.decided, APPROVAL_FACT_KINDS.expired]);

/**
 * Turns facts into deliveries: each fact through its workspace's rules, one
 * `post` job per matching rule; an approval's outcome also becomes an
 * `update` job per post made for that approval, whatever rule made it. The
 * jobs are added before the batch is acked, with ids that make a replay a
 * no-op; the posts themselves happen in the queue, so one slow channel never
 * holds back this loop.
 */
export class Notifier {
  constructor(private readonly deps: NotifierDeps) {}

  async handle(inputs: readonly NotifierInput[]): Promise<void> {
    if (inputs.length === 0) return;
    const settings = await this.deps.store.settingsOf([...new Set(inputs.map((input) => input.workspaceId))]);
    const jobs: Array<{ id: string; job: NotificationJob }> = [];
    const compiled = new Map<string, ReturnType<typeof compileRules>>();
    for (const { fact, workspaceId } of inputs) {
      const saved = settings.get(workspaceId);
      if (!saved || saved.settings.connection === null) continue;
      let rules = compiled.get(workspaceId);
      if (!rules) compiled.set(workspaceId, (rules = compileRules(saved.settings)));
      for (const { rule } of matchingRules(rules, fact)) jobs.push({ id: postJobId(fact.id, rule.id), job: { type: 'post', workspaceId, fact, ruleId: rule.id } });
      if (OUTCOME_KINDS.has(fact.kind) && saved.settings.connection.type === 'bot') {
        for (const delivery of await this.deps.store.deliveriesOf(workspaceId, subjectKey(fact))) {
          if (delivery.postId === null || delivery.factId === fact.id) continue;
          jobs.push({
            // BullMQ refuses custom ids of more than three `:`-separated parts.
            id: `update:${fact.id}:${delivery.factId}/${delivery.ruleId}`,
            job: { type: 'update', workspaceId, fact, ruleId: delivery.ruleId, postFactId: delivery.factId },
          });
        }
      }
    }
    if (jobs.length > 0) {
      await this.deps.jobs.add(jobs);
      this.deps.log.debug({ jobs: jobs.length }, 'notifications queued');
    }
  }
}
