import { z } from 'zod';
import { SecretNameSchema } from './agent-loop';
import { AgentIdSchema, AgentModelSchema, AgentNameSchema, AgentSpecSchema } from './agents';
import { TemplateOriginSchema } from './agent-bundles';
import { NotificationRuleSchema } from './notifications';

/*
 * First-party templates (decision 0049): agents shipped in the repo as data
 * under `templates/<id>/template.json`, each with a README. Adopting one
 * creates a disabled copy in the workspace and answers a checklist of what the
 * copy needs before it is enabled.
 */

/** A template id: the name of its folder under `templates/` (and `templateOrigin.templateId`). */
export const TemplateIdSchema = TemplateOriginSchema.shape.templateId;

/** A workspace secret the template's spec names, and what it is for. */
export const TemplateSecretSchema = z.strictObject({
  name: SecretNameSchema,
  purpose: z.string().min(1).max(500),
});

/** An MCP server the template's spec names, what it stands for, and the tools the agent calls on it. */
export const TemplateMcpServerSchema = z.strictObject({
  name: z.string().min(1).max(64),
  purpose: z.string().min(1).max(500),
  tools: z.array(z.string().min(1).max(200)).max(50),
});

/**
 * A template manifest (`templates/<id>/template.json`). `spec` runs as shipped:
 * it is scripted (its `script` replays without a model key), and `liveModel`
 * is the model it uses for real work (adopt with `{"model": "live"}`).
 */
export const TemplateManifestSchema = z
  .strictObject({
    id: TemplateIdSchema,
    /** Bumped when the spec changes; copied to `templateOrigin.templateVersion`. */
    version: z.string().regex(/^[0-9]+\.[0-9]+\.[0-9]+$/, 'a template version is major.minor.patch'),
    title: z.string().min(1).max(100),
    summary: z.string().min(1).max(1_000),
    spec: AgentSpecSchema,
    liveModel: AgentModelSchema,
    requiredSecrets: z.array(TemplateSecretSchema).max(20),
    requiredMcpServers: z.array(TemplateMcpServerSchema).max(20),
    /** Notification rules the template's facts are meant for (add them under Settings › Notifications). */
    notificationRules: z.array(NotificationRuleSchema).max(10).optional(),
  })
  .superRefine((manifest, ctx) => {
    if (manifest.spec.model.provider !== 'scripted') ctx.addIssue({ code: 'custom', message: 'a shipped spec is scripted, so it runs without a model key', path: ['spec', 'model'] });
    if (manifest.spec.enabled !== undefined) ctx.addIssue({ code: 'custom', message: 'an adopted copy is created disabled: no enabled in the spec', path: ['spec', 'enabled'] });
    const servers = manifest.spec.tools.mcpServers.map((server) => server.name).sort();
    const listed = manifest.requiredMcpServers.map((server) => server.name).sort();
    if (servers.join() !== listed.join()) ctx.addIssue({ code: 'custom', message: `requiredMcpServers (${listed.join()}) must be the spec's MCP servers (${servers.join()})`, path: ['requiredMcpServers'] });
    const named = new Set(manifest.requiredSecrets.map((secret) => secret.name));
    for (const secret of templateSecretNames(manifest)) {
      if (!named.has(secret)) ctx.addIssue({ code: 'custom', message: `the secret ${secret} is named by the spec but not in requiredSecrets`, path: ['requiredSecrets'] });
    }
  });
export type TemplateManifest = z.infer<typeof TemplateManifestSchema>;

/** The workspace secrets a manifest's spec and live model name. */
export function templateSecretNames(manifest: Pick<TemplateManifest, 'spec' | 'liveModel'>): string[] {
  const names = [manifest.spec.model.apiKeySecret, manifest.liveModel.apiKeySecret];
  for (const server of manifest.spec.tools.mcpServers) {
    if (server.transport === 'http') for (const value of Object.values(server.headers ?? {})) if (typeof value !== 'string') names.push(value.secret);
  }
  return [...new Set(names.filter((name): name is string => name !== undefined))];
}

/** A template as `GET /templates` lists it. */
export const TemplateSummarySchema = z.strictObject({
  id: TemplateIdSchema,
  version: z.string(),
  title: z.string(),
  summary: z.string(),
  /** The name an adopted copy gets unless the adopt names another. */
  agentName: AgentNameSchema,
  triggers: z.array(z.string()),
  permissionMode: z.enum(['default', 'auto', 'bypass', 'plan']),
  requiredSecrets: z.array(TemplateSecretSchema),
  requiredMcpServers: z.array(TemplateMcpServerSchema),
  notificationRules: z.array(NotificationRuleSchema),
});
export type TemplateSummary = z.infer<typeof TemplateSummarySchema>;

/** `GET /v1/workspaces/{ws}/templates` response. */
export const ListTemplatesResponseSchema = z.strictObject({ templates: z.array(TemplateSummarySchema) });
export type ListTemplatesResponse = z.infer<typeof ListTemplatesResponseSchema>;

/** `POST /v1/workspaces/{ws}/templates/{id}/adopt` body. */
export const AdoptTemplateRequestSchema = z.strictObject({
  /** The copy's name; default the template's agent name. */
  name: AgentNameSchema.optional(),
  /** `script` (default): the copy replays its script, no model key needed; `live`: the copy uses the template's live model. */
  model: z.enum(['script', 'live']).default('script'),
});
export type AdoptTemplateRequest = z.infer<typeof AdoptTemplateRequestSchema>;

/**
 * What adopting did with one of the template's notification rules: `installed` into the workspace's
 * settings; `already_installed` (the same rule is there: adopting again changes nothing);
 * `kept_existing` (a different rule has its id: the workspace's is kept); `no_room` (the settings
 * hold MAX_NOTIFICATION_RULES); `not_admin` (only an admin changes the settings: add it there).
 */
export const TemplateRuleInstallSchema = z.strictObject({
  id: z.string(),
  status: z.enum(['installed', 'already_installed', 'kept_existing', 'no_room', 'not_admin']),
});
export type TemplateRuleInstall = z.infer<typeof TemplateRuleInstallSchema>;

/** `POST /v1/workspaces/{ws}/templates/{id}/adopt` response (201): the disabled copy and what it needs before it is enabled. */
export const AdoptTemplateResponseSchema = z.strictObject({
  agent: z.strictObject({ id: AgentIdSchema, name: AgentNameSchema, version: z.number().int().positive(), enabled: z.literal(false), templateOrigin: TemplateOriginSchema }),
  checklist: z.strictObject({
    /** Every secret the copy names: `set` says whether this workspace holds it now. */
    secrets: z.array(TemplateSecretSchema.extend({ set: z.boolean() })),
    /** Every MCP server of the copy, with the URL (or command) it points at: point it at yours (`PUT /agents/{id}`). */
    mcpServers: z.array(TemplateMcpServerSchema.extend({ target: z.string() })),
    /** The template's notification rules for its facts. */
    notificationRules: z.array(NotificationRuleSchema),
    /** What adopting did with each of them (the settings are one audited document: `notifications.settings_changed`). */
    notificationRulesInstalled: z.array(TemplateRuleInstallSchema),
  }),
});
export type AdoptTemplateResponse = z.infer<typeof AdoptTemplateResponseSchema>;
