import type { WebhookMapping, WebhookVerifier } from '@switchyard/contracts';
import type { SealedSecret } from '@switchyard/core';
import type { FactsOf } from './fact-ports';

/** A webhook as stored, without its secret. */
export interface WebhookRecord {
  name: string;
  verifier: WebhookVerifier;
  mapping: WebhookMapping;
  createdAt: Date;
  updatedAt: Date;
}

/** A webhook as a delivery needs it: its workspace, its configuration and its sealed secret (null for `none`). */
export interface WebhookForDelivery {
  workspace: { id: string; slug: string };
  webhook: WebhookRecord;
  sealed: SealedSecret | null;
}

/** What a configuration write stores: everything a PUT gives, the secret sealed. */
export interface WebhookWrite {
  workspaceId: string;
  name: string;
  verifier: WebhookVerifier;
  mapping: WebhookMapping;
  sealed: SealedSecret | null;
}

/**
 * Inbound webhooks in the system of record (`webhooks`). Every query is
 * scoped by workspace id, except the delivery's lookup, which goes by the
 * path's slug and name in one statement.
 */
export interface WebhookStore {
  /** Creates or replaces a webhook, with the facts the result announces in the same transaction. */
  put(write: WebhookWrite, facts: FactsOf<{ webhook: WebhookRecord; created: boolean }>): Promise<{ webhook: WebhookRecord; created: boolean }>;
  /** The workspace's webhooks by name. */
  list(workspaceId: string): Promise<WebhookRecord[]>;
  get(workspaceId: string, name: string): Promise<WebhookRecord | null>;
  /** Deletes a webhook with the facts announcing it; returns what it was, or null when there was none. */
  delete(workspaceId: string, name: string, facts: FactsOf<WebhookRecord>): Promise<WebhookRecord | null>;
  /**
   * The webhook `name` of the workspace whose slug is `slug`, in one query
   * whether or not the workspace exists (a delivery's 404 must not tell).
   */
  findForDelivery(slug: string, name: string): Promise<WebhookForDelivery | null>;
}
