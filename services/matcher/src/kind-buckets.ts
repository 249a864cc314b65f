import type { Fact } from '@switchyard/contracts';
import type { FactPredicate, KindMatcher } from '@switchyard/core';

/** One compiled kind glob (and filter) of a subscriber — an agent's trigger or a teammate's watch entry. */
export interface Subscription {
  readonly kind: KindMatcher;
  /** Undefined when there is no filter: every fact of a matching kind passes. */
  readonly filter: FactPredicate | undefined;
  /** Who subscribed (agent or teammate id): lookups return a subscriber once. */
  readonly ownerId: string;
  /** Its position in the subscriber's list (trigger or watch index). */
  readonly position: number;
}

/**
 * The subscriptions of one workspace, spread over buckets so that a lookup
 * reads only those that could match the kind. Every subscription sits in
 * exactly one bucket, so a lookup never sees one twice.
 */
export class KindBuckets<T extends Subscription> {
  /** Globs without wildcards, by the kind they equal: match without testing. */
  private readonly exact = new Map<string, Set<T>>();
  /** Globs starting with a literal segment, by it: a matching kind starts with that segment. */
  private readonly byFirst = new Map<string, Set<T>>();
  /** Globs starting with a wildcard and ending with a literal segment (`*.failed`), by that last segment. */
  private readonly byLast = new Map<string, Set<T>>();
  /** Globs starting and ending with a wildcard (`*`, `**`, `*.x.**`): tested for every kind, expected to be few. */
  private readonly wildcard = new Set<T>();
  /** Indexed subscribers, so an emptied workspace can be dropped. */
  owners = 0;

  add(subscription: T): void {
    const [map, key] = this.placement(subscription.kind.glob);
    if (map === undefined) {
      this.wildcard.add(subscription);
      return;
    }
    const bucket = map.get(key);
    if (bucket === undefined) map.set(key, new Set([subscription]));
    else bucket.add(subscription);
  }

  delete(subscription: T): void {
    const [map, key] = this.placement(subscription.kind.glob);
    if (map === undefined) {
      this.wildcard.delete(subscription);
      return;
    }
    const bucket = map.get(key);
    bucket?.delete(subscription);
    // Drop empty buckets: kinds churn, and a map of empty sets would grow without bound.
    if (bucket?.size === 0) map.delete(key);
  }

  /** The subscriptions whose kind glob matches `kind`, ordered by owner then position. */
  lookup(kind: string): T[] {
    const found: T[] = [];
    // Exact globs equal the kind by construction; a loop, not a spread, since a popular kind may hold thousands.
    for (const subscription of this.exact.get(kind) ?? []) found.push(subscription);
    const dot = kind.indexOf('.');
    const first = dot < 0 ? kind : kind.slice(0, dot);
    const last = kind.slice(kind.lastIndexOf('.') + 1);
    for (const bucket of [this.byFirst.get(first), this.byLast.get(last), this.wildcard]) {
      if (bucket === undefined) continue;
      for (const subscription of bucket) if (subscription.kind.test(kind)) found.push(subscription);
    }
    // Sorting the few hits makes results independent of insertion order, and groups each owner's subscriptions.
    return found.sort((a, b) => (a.ownerId === b.ownerId ? a.position - b.position : a.ownerId < b.ownerId ? -1 : 1));
  }

  /** The subscribers `fact` matches (kind glob and filter), each once with its lowest matching subscription. */
  match(fact: Fact): T[] {
    const matched: T[] = [];
    let lastOwner: string | undefined;
    // lookup() sorts by owner, so an owner's subscriptions are adjacent and the first hit is its lowest position.
    for (const subscription of this.lookup(fact.kind)) {
      if (subscription.ownerId === lastOwner) continue;
      if (subscription.filter === undefined || subscription.filter(fact)) {
        matched.push(subscription);
        lastOwner = subscription.ownerId;
      }
    }
    return matched;
  }

  /** Which map (and key) a glob belongs to; no map means the wildcard list. */
  private placement(glob: string): [Map<string, Set<T>> | undefined, string] {
    const segments = glob.split('.');
    const isWild = (segment: string | undefined): boolean => segment === '*' || segment === '**';
    if (!segments.some(isWild)) return [this.exact, glob];
    const first = segments[0] as string;
    if (!isWild(first)) return [this.byFirst, first];
    const last = segments[segments.length - 1] as string;
    if (!isWild(last)) return [this.byLast, last];
    return [undefined, ''];
  }
}

/** The workspace's buckets, made on first use. */
export function bucketsOf<T extends Subscription>(workspaces: Map<string, KindBuckets<T>>, workspaceId: string): KindBuckets<T> {
  let buckets = workspaces.get(workspaceId);
  if (buckets === undefined) {
    buckets = new KindBuckets<T>();
    workspaces.set(workspaceId, buckets);
  }
  return buckets;
}

/** Takes one owner's subscriptions out of its workspace's buckets, dropping an emptied workspace. */
export function unindexOwner<T extends Subscription>(workspaces: Map<string, KindBuckets<T>>, workspaceId: string, subscriptions: readonly T[]): void {
  const buckets = workspaces.get(workspaceId);
  if (buckets === undefined) return;
  for (const subscription of subscriptions) buckets.delete(subscription);
  buckets.owners -= 1;
  if (buckets.owners === 0) workspaces.delete(workspaceId);
}
