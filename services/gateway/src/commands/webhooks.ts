import { AppError, ErrorCode, type PutWebhookRequest, type Webhook, type WebhookMapping } from '@switchyard/contracts';
import { webhookFact, type SecretBox } from '@switchyard/core';
import { changeAuthorOf } from '../change-author';
import { assertRole } from '../http/auth';
import type { Principal } from '../auth-ports';
import type { FactFlusher } from '../fact-ports';
import type { WebhookRecord, WebhookStore } from '../webhook-ports';

/** What the webhook configuration commands need. */
export interface WebhookCommandDeps {
  webhooks: WebhookStore;
  /** Seals signing secrets (SECRETS_KEY); null when unset, and every webhook command answers 503. */
  secretBox: SecretBox | null;
  outbox: FactFlusher;
  /** WEBHOOK_ALLOW_UNSIGNED: whether the operator allows webhooks with verifier `none`. */
  allowUnsigned: boolean;
}

/** Who asks, and the id that ties the request to the facts it records. */
export interface WebhookCommandContext {
  principal: Principal;
  correlationId: string;
}

/**
 * Where a webhook's signing secret is sealed: the workspace and `webhook:<name>`
 * (a workspace secret's name cannot hold `:`), so a ciphertext copied to
 * another webhook, workspace or secret does not open.
 */
export const webhookSecretScope = (workspaceId: string, name: string) => ({ workspaceId, name: `webhook:${name}` });

/** The 404 of a webhook that is not there: the same for a configuration read and a delivery. */
export const webhookNotFound = (name: string) => new AppError(ErrorCode.WEBHOOK_NOT_FOUND, 'no such webhook', { name });

/** The 403 of a `none` webhook while the operator does not allow them. */
export const unsignedRefused = () =>
  new AppError(ErrorCode.WEBHOOK_UNSIGNED_REFUSED, 'unsigned webhooks (verifier none) are not allowed on this gateway: the operator sets WEBHOOK_ALLOW_UNSIGNED=true to allow them');

/** A stored webhook as admins see it: never its secret. */
export function toWebhook(record: WebhookRecord, workspaceSlug: string): Webhook {
  return {
    name: record.name,
    verifier: record.verifier,
    ...record.mapping,
    deliveryPath: `/v1/workspaces/${workspaceSlug}/webhooks/${record.name}`,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

/** What a PUT maps deliveries with: the request without its verifier and secret. */
function mappingOf(request: PutWebhookRequest): WebhookMapping {
  const { kind, subject } = request;
  if (request.verifier === 'hmac-sha256') {
    const { signatureHeader, deliveryIdHeader } = request;
    return deliveryIdHeader === undefined ? { kind, subject, signatureHeader } : { kind, subject, signatureHeader, deliveryIdHeader };
  }
  if (request.verifier === 'none' && request.deliveryIdHeader !== undefined) return { kind, subject, deliveryIdHeader: request.deliveryIdHeader };
  return { kind, subject };
}

/**
 * Inbound webhook configuration (docs/webhooks.md), admins only: a write
 * seals the secret with SECRETS_KEY and records `webhook.configured` (a
 * delete `webhook.deleted`) in its transaction, never with the secret.
 */
export class WebhookSettings {
  constructor(private readonly deps: WebhookCommandDeps) {}

  /** Creates or replaces the webhook `name`; `created` tells which. */
  async put(ctx: WebhookCommandContext, name: string, request: PutWebhookRequest): Promise<{ webhook: Webhook; created: boolean }> {
    const box = this.admit(ctx.principal);
    if (request.verifier === 'none' && !this.deps.allowUnsigned) throw unsignedRefused();
    const { workspaceId, workspaceSlug } = ctx.principal;
    const sealed = request.verifier === 'none' ? null : box.seal(webhookSecretScope(workspaceId, name), request.secret);
    const written: string[] = [];
    const { webhook, created } = await this.deps.webhooks.put({ workspaceId, name, verifier: request.verifier, mapping: mappingOf(request), sealed }, (result) => {
      const payload = { name, verifier: result.webhook.verifier, ...result.webhook.mapping, created: result.created };
      return this.facts(ctx, written, webhookFact(changeAuthorOf(ctx.principal), { kind: 'configured', payload }));
    });
    await this.deps.outbox.flush(written);
    return { webhook: toWebhook(webhook, workspaceSlug), created };
  }

  async list(principal: Principal): Promise<Webhook[]> {
    this.admit(principal);
    return (await this.deps.webhooks.list(principal.workspaceId)).map((record) => toWebhook(record, principal.workspaceSlug));
  }

  async get(principal: Principal, name: string): Promise<Webhook> {
    this.admit(principal);
    const record = await this.deps.webhooks.get(principal.workspaceId, name);
    if (!record) throw webhookNotFound(name);
    return toWebhook(record, principal.workspaceSlug);
  }

  async delete(ctx: WebhookCommandContext, name: string): Promise<void> {
    this.admit(ctx.principal);
    const written: string[] = [];
    const deleted = await this.deps.webhooks.delete(ctx.principal.workspaceId, name, (record) =>
      this.facts(ctx, written, webhookFact(changeAuthorOf(ctx.principal), { kind: 'deleted', payload: { name, verifier: record.verifier } })),
    );
    if (!deleted) throw webhookNotFound(name);
    await this.deps.outbox.flush(written);
  }

  /** Admins only, and only with SECRETS_KEY configured (503 otherwise, as the secrets routes); the box. */
  private admit(principal: Principal): SecretBox {
    assertRole(principal, 'admin');
    if (!this.deps.secretBox) {
      throw new AppError(ErrorCode.UNAVAILABLE, 'webhooks are unavailable: SECRETS_KEY is not configured on the gateway');
    }
    return this.deps.secretBox;
  }

  private facts(ctx: WebhookCommandContext, written: string[], fact: ReturnType<typeof webhookFact>) {
    written.push(fact.id);
    return [{ fact, correlationId: ctx.correlationId }];
  }
}
