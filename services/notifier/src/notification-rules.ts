import type { Fact, NotificationRule, NotificationSettings } from '@switchyard/contracts';
import { compileFilter, compileKindGlob, type FactPredicate, type KindMatcher } from '@switchyard/core';

/** A rule ready to test facts: its kind glob and trigger filter compiled once. */
export interface CompiledRule {
  rule: NotificationRule;
  /** The channel it posts to: its own, else the settings' default (null for a webhook's own channel). */
  channel: string | null;
  kind: KindMatcher;
  filter: FactPredicate | null;
}

/**
 * The enabled rules of a workspace's settings, compiled with the matcher's
 * own kind glob and trigger filter (decision 0010): one language for agents
 * and notifications.
 */
export function compileRules(settings: NotificationSettings): CompiledRule[] {
  return settings.rules
    .filter((rule) => rule.enabled)
    .map((rule) => ({
      rule,
      channel: rule.channel ?? settings.defaultChannel,
      kind: compileKindGlob(rule.kind),
      filter: rule.filter ? compileFilter(rule.filter) : null,
    }));
}

/** The rules a fact matches, in the settings' order. */
export function matchingRules(rules: readonly CompiledRule[], fact: Fact): CompiledRule[] {
  return rules.filter((compiled) => compiled.kind.test(fact.kind) && (compiled.filter === null || compiled.filter(fact)));
}
