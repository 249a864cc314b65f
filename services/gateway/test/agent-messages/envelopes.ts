import { randomUUID } from 'node:crypto';

/**
 * Why this exists: the agent-message tests (functional, chaos, marker) post
 * the same kinds of envelopes, valid and each kind of defect. These builders
 * give them one shape; every envelope lives an hour from now.
 */
export function envelope(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Date.now();
  return {
    schema: 'agent-message/v1',
    messageId: randomUUID(),
    senderSeq: 1,
    thread: 'build-42',
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + 3_600_000).toISOString(),
    topic: 'flaky-test',
    content: 'The integration test fails only when Redis restarts.',
    deliveryMode: 'shadow',
    canAuthorizeActions: false,
    ...overrides,
  };
}

/** The kinds of defect a producer can send, each with the quarantine reason it must get. */
export const DEFECTS = ['invalid', 'expired', 'oversized', 'duplicate_property', 'duplicate_message', 'secret_detected'] as const;
export type Defect = (typeof DEFECTS)[number];

/**
 * A body with `defect`, as raw JSON text. `earlier` is a valid envelope
 * already posted by another producer (for duplicate_message: its messageId
 * with other content). `marker` is planted in the content of every body.
 */
export function defective(defect: Defect, marker: string, earlier: Record<string, unknown>): string {
  switch (defect) {
    case 'invalid':
      return JSON.stringify(envelope({ content: `${marker} invalid`, canAuthorizeActions: true }));
    case 'expired':
      return JSON.stringify(envelope({ content: `${marker} expired`, createdAt: new Date(Date.now() - 7_200_000).toISOString(), expiresAt: new Date(Date.now() - 3_600_000).toISOString() }));
    case 'oversized':
      return JSON.stringify(envelope({ content: `${marker} ${'x'.repeat(5_000)}` }));
    case 'duplicate_property': {
      const text = JSON.stringify(envelope({ content: `${marker} duplicated` }));
      return `${text.slice(0, -1)},"topic":"other"}`;
    }
    case 'duplicate_message':
      return JSON.stringify({ ...earlier, content: `${marker} duplicate of ${String(earlier.messageId)}` });
    case 'secret_detected':
      return JSON.stringify(envelope({ content: `${marker} use AKIA${'ABCDEFGHIJKLMNOP'} to deploy` }));
  }
}
