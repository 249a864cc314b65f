import { z } from 'zod';
import { SecretNameSchema } from './agent-loop';
import { AgentIdSchema, AgentNameSchema, AgentSpecSchema } from './agents';
import { VersionTagSchema, MAX_TAGS_PER_AGENT } from './agent-versions';
import { WorkspaceSlugSchema } from './facts';

/*
 * Agent bundles (decision 0046): agents moved between workspaces and instances
 * as one JSON document. Every version carries the hash of its canonical spec,
 * so a round trip is checkable and a changed spec is refused.
 */

/** The bundle format this code writes and reads. */
export const AGENT_BUNDLE_FORMAT = 'switchyard.agents/v1';

/** Most agents in one bundle, and versions per agent (the gateway's body limit bounds a bundle's bytes first). */
export const MAX_BUNDLE_AGENTS = 100;
export const MAX_BUNDLE_VERSIONS = 500;

/** `sha256:` and the hex SHA-256 of the spec's canonical JSON (libs/core `specHash`). */
export const SpecHashSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'a spec hash is sha256: and 64 lowercase hex digits');

/** Where an agent came from when it was adopted from a template; null on agents written by hand. */
export const TemplateOriginSchema = z.strictObject({
  templateId: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'a template id is lowercase letters, digits, - and _'),
  templateVersion: z.string().min(1).max(64).optional(),
});
export type TemplateOrigin = z.infer<typeof TemplateOriginSchema>;

/** One version in a bundle: its number at the source, its spec (defaults filled in, no `enabled`) and that spec's hash. */
export const BundleVersionSchema = z.strictObject({
  version: z.number().int().positive(),
  specHash: SpecHashSchema,
  spec: AgentSpecSchema.refine((spec) => spec.enabled === undefined, { message: 'enabled is agent state, not part of a version', path: ['enabled'] }),
});
export type BundleVersion = z.infer<typeof BundleVersionSchema>;

/** One agent in a bundle. Versions ascend; tags, the pin and collaborator rules name versions and agents of the bundle only. */
export const BundleAgentSchema = z.strictObject({
  /** The agent's id at the source: how the bundle's collaborator rules name it (an import gives the agent a new id). */
  key: AgentIdSchema,
  /** The latest exported version's name. */
  name: AgentNameSchema,
  /** Whether it was enabled at the source (an import creates it disabled). */
  enabled: z.boolean(),
  /** The pinned version (a source number among `versions`), null when none or not exported. */
  pinnedVersion: z.number().int().positive().nullable(),
  templateOrigin: TemplateOriginSchema.nullable(),
  versions: z.array(BundleVersionSchema).min(1).max(MAX_BUNDLE_VERSIONS),
  tags: z.array(z.strictObject({ tag: VersionTagSchema, version: z.number().int().positive() })).max(MAX_TAGS_PER_AGENT),
  /** The agent's collaborator rules towards other agents of the bundle, by `key`. */
  collaborators: z.array(z.strictObject({ agent: AgentIdSchema, enabled: z.boolean() })).max(MAX_BUNDLE_AGENTS),
});
export type BundleAgent = z.infer<typeof BundleAgentSchema>;

/** An agent bundle (`GET …/agents/{id}/export`, `POST …/agents:import`, `npm run admin -- export-agents`). */
export const AgentBundleSchema = z.strictObject({
  format: z.literal(AGENT_BUNDLE_FORMAT),
  exportedAt: z.iso.datetime(),
  source: z.strictObject({ workspace: WorkspaceSlugSchema }),
  agents: z.array(BundleAgentSchema).min(1).max(MAX_BUNDLE_AGENTS),
  /** Workspace secrets the specs name (model keys, MCP headers): set them in the target workspace. Values never travel. */
  secrets: z.array(SecretNameSchema).max(1_000),
});
export type AgentBundle = z.infer<typeof AgentBundleSchema>;

/** Which versions an export carries: every one, the latest, the ones in use (latest, pinned, tagged), or a list (`3,5,8`; one agent only). */
export const ExportVersionsSchema = z.union([
  z.enum(['all', 'latest', 'used']),
  z
    .string()
    .regex(/^[1-9][0-9]{0,9}(,[1-9][0-9]{0,9}){0,99}$/, 'versions is all, latest, used or a comma-separated list of version numbers')
    .transform((list) => [...new Set(list.split(',').map(Number))].sort((a, b) => a - b)),
]);
export type ExportVersions = z.infer<typeof ExportVersionsSchema>;

/** `GET /v1/workspaces/{ws}/agents/{id}/export` query. */
export const ExportAgentQuerySchema = z.strictObject({
  /** @defaultValue all */
  versions: ExportVersionsSchema.default('all'),
  /** Other agents of the workspace to export with it (comma-separated ids), so rules between them travel too. */
  with: z
    .string()
    .max(100 * 37)
    .transform((list) => list.split(','))
    .pipe(z.array(AgentIdSchema).max(MAX_BUNDLE_AGENTS - 1))
    .optional(),
});
export type ExportAgentQuery = z.infer<typeof ExportAgentQuerySchema>;

/** `POST /v1/workspaces/{ws}/agents:import` response (201): each bundle agent's new id and its versions' new numbers. */
export const ImportAgentsResponseSchema = z.strictObject({
  agents: z.array(
    z.strictObject({
      key: AgentIdSchema,
      id: AgentIdSchema,
      name: AgentNameSchema,
      pinnedVersion: z.number().int().positive().nullable(),
      versions: z.array(z.strictObject({ bundleVersion: z.number().int().positive(), version: z.number().int().positive(), specHash: SpecHashSchema })),
    }),
  ),
  /** The secrets the imported specs name, for the person to set; the agents are created disabled. */
  secrets: z.array(SecretNameSchema),
});
export type ImportAgentsResponse = z.infer<typeof ImportAgentsResponseSchema>;
