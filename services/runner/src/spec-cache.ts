import { AgentSpecSchema, type AgentSpec } from '@switchyard/contracts';

/** Agent versions whose parsed specs a runner keeps. */
const MAX_VERSIONS = 1_000;

/**
 * Parsed agent specs by (agent, version). A version's spec never changes
 * (a change is a new version), so a read and a parse are valid for good: the
 * runner loads and parses a version once instead of on every claim of one of
 * its runs. Null for a stored spec that does not parse (or is gone),
 * remembered likewise.
 */
export class SpecCache {
  private readonly specs = new Map<string, AgentSpec | null>();

  constructor(private readonly load: (agentId: string, version: number) => Promise<unknown>) {}

  async get(agentId: string, version: number): Promise<AgentSpec | null> {
    const key = `${agentId}:${version}`;
    const known = this.specs.get(key);
    if (known !== undefined) return known;
    const parsed = AgentSpecSchema.safeParse(await this.load(agentId, version));
    const spec = parsed.success ? parsed.data : null;
    // Oldest first out: a Map keeps insertion order.
    if (this.specs.size >= MAX_VERSIONS) this.specs.delete(this.specs.keys().next().value!);
    this.specs.set(key, spec);
    return spec;
  }
}
