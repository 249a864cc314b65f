import { AppError, ErrorCode } from '@switchyard/contracts';
import { GITHUB_SIGNATURE_HEADER, verifyWebhookSignature, webhookDeliveryFact, type SecretBox } from '@switchyard/core';
import { acceptFacts, type AcceptEventsDeps } from '../accept-events';
import { parseJsonBytes } from '../http/json-body';
import type { WebhookForDelivery, WebhookStore } from '../webhook-ports';
import { unsignedRefused, webhookNotFound, webhookSecretScope } from './webhooks';

/** What a delivery needs. */
export interface ReceiveWebhookDeps {
  webhooks: Pick<WebhookStore, 'findForDelivery'>;
  /** Opens signing secrets; null without SECRETS_KEY (then every delivery answers 503, found or not). */
  secretBox: SecretBox | null;
  /** WEBHOOK_ALLOW_UNSIGNED: without it a `none` webhook's deliveries are refused too. */
  allowUnsigned: boolean;
  /** Where the fact goes: as `POST /events` accepts facts. */
  accept: AcceptEventsDeps;
}

/** A delivery as the route read it. */
export interface WebhookDeliveryRequest {
  /** The path's workspace slug and webhook name, both already valid. */
  slug: string;
  name: string;
  /** A header's one value by lowercase name; undefined when absent or sent more than once. */
  header: (name: string) => string | undefined;
  /** The body's bytes, decoded from its Content-Encoding. */
  raw: Uint8Array;
}

const badSignature = () => new AppError(ErrorCode.WEBHOOK_SIGNATURE_INVALID, "the delivery's signature is missing or does not verify");

/** 401 unless the delivery is signed with the webhook's secret (403 for a `none` webhook the operator no longer allows). */
function verify(box: SecretBox, found: WebhookForDelivery, request: WebhookDeliveryRequest, allowUnsigned: boolean): void {
  const { webhook, workspace, sealed } = found;
  if (webhook.verifier === 'none') {
    if (!allowUnsigned) throw unsignedRefused();
    return;
  }
  if (!sealed) throw badSignature();
  const secret = box.open(webhookSecretScope(workspace.id, webhook.name), sealed);
  const github = webhook.verifier === 'github';
  const header = github ? GITHUB_SIGNATURE_HEADER : webhook.mapping.signatureHeader;
  if (header === undefined || !verifyWebhookSignature(secret, request.raw, request.header(header), github)) throw badSignature();
}

/**
 * A sender's delivery to `POST /v1/workspaces/{ws}/webhooks/{name}` (no
 * platform token; docs/webhooks.md): the webhook is looked up by slug and
 * name in one query (404 alike for an unknown workspace and an unknown
 * name), the signature checked over the raw bytes (401, nothing recorded),
 * and only then the body parsed and mapped to one fact, accepted into
 * `ingest` with the delivery id as its idempotency key: a replay answers the
 * first delivery's fact id and records nothing.
 */
export async function receiveWebhook(deps: ReceiveWebhookDeps, request: WebhookDeliveryRequest, correlationId: string): Promise<{ id: string }> {
  const box = deps.secretBox;
  if (!box) throw new AppError(ErrorCode.UNAVAILABLE, 'webhooks are unavailable: SECRETS_KEY is not configured on the gateway');
  const found = await deps.webhooks.findForDelivery(request.slug, request.name);
  if (!found) throw webhookNotFound(request.name);
  verify(box, found, request, deps.allowUnsigned);
  const { workspace, webhook } = found;
  const body = parseJsonBytes(request.raw);
  const fact = webhookDeliveryFact({ workspace, name: webhook.name, verifier: webhook.verifier, mapping: webhook.mapping, header: request.header, body, raw: request.raw }, new Date().toISOString());
  const [result] = await acceptFacts(deps.accept, workspace, [fact], correlationId);
  return { id: result!.id };
}
