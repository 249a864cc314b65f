import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { MattermostActionContext } from '@switchyard/contracts';
import { parseSecretsKey } from './secret-box';

/** What a button's context signs: everything but the signature. */
export type UnsignedActionContext = Omit<MattermostActionContext, 'sig'>;

/**
 * The key of button signatures, derived from a SECRETS_KEY (HKDF-SHA256 with
 * its own label), so the notifier that signs and the gateway that verifies
 * share no extra secret, and a signature never doubles as a secret's key.
 */
export function actionSigningKey(secretsKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', parseSecretsKey(secretsKey), Buffer.alloc(0), 'switchyard mattermost actions v1', 32));
}

/** The fields a v2 context adds (decision 0043); present or absent, each is signed. */
const V2_FIELDS = ['url', 'userId', 'memberId', 'nonce'] as const;

function mac(key: Uint8Array, context: UnsignedActionContext): Buffer {
  // A fixed field order: the signature must not depend on how JSON was re-serialized on the way.
  const v1 = [context.approvalId, context.workspace, context.decision, String(context.exp)];
  // A v2 context signs its added fields too, under a label no v1 text can start with (a v1 text starts with a UUID).
  const v2 = V2_FIELDS.some((field) => context[field] !== undefined);
  const text = v2 ? ['v2', ...v1, ...V2_FIELDS.map((field) => context[field] ?? '')] : v1;
  return createHmac('sha256', key).update(text.join('\n')).digest();
}

/** The context with its HMAC-SHA256 (base64url) in `sig`. */
export function signActionContext(key: Uint8Array, context: UnsignedActionContext): MattermostActionContext {
  return { ...context, sig: mac(key, context).toString('base64url') };
}

/**
 * Whether `context.sig` is the HMAC of the rest under one of `keys` (the
 * current SECRETS_KEY's, then previous ones: buttons posted before a key
 * rotation keep working). Constant-time per key.
 */
export function verifyActionContext(keys: readonly Uint8Array[], context: MattermostActionContext): boolean {
  const given = Buffer.from(context.sig, 'base64url');
  return keys.some((key) => {
    const expected = mac(key, context);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
