import { AgentSpecSchema, type AgentSpec } from '@switchyard/contracts';

/** Agent versions whose parsed specs a runner keeps. */
const MAX_VERSIONS = 1_000;

/**
 * Parsed agent specs by (agent, version). A version's spec never changes
 * (a change is a new version), so a read and a parse are valid for good: the
 * runner loads and parses a version once instead of on every claim of one of
 * its runs. Runs of one version claimed together (a lane's batch) share one
 * read: the pending read is what is cached. Null for a stored spec that
 * does not parse (or is gone), remembered likewise; a read that fails is
 * forgotten, the next claim reads again.
 */
export class SpecCache {
  private readonly specs = new Map<string, Promise<AgentSpec | null>>();

  constructor(private readonly load: (agentId: string, version: number) => Promise<unknown>) {}

  get(agentId: string, version: number): Promise<AgentSpec | null> {
    const key = `${agentId}:${version}`;
    const known = this.specs.get(key);
    if (known !== undefined) return known;
    const loading = this.load(agentId, version).then((stored) => {
      const parsed = AgentSpecSchema.safeParse(stored);
      return parsed.success ? parsed.data : null;
    });
    // Oldest first out: a Map keeps insertion order.
    if (this.specs.size >= MAX_VERSIONS) this.specs.delete(this.specs.keys().next().value!);
    this.specs.set(key, loading);
    loading.catch(() => {
      if (this.specs.get(key) === loading) this.specs.delete(key);
    });
    return loading;
  }
}
