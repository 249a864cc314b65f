import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { AppError, ErrorCode } from '@switchyard/contracts';

const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEX_KEY = /^[0-9a-fA-F]{64}$/;
// 32 bytes are 43 base64 characters and one `=` of padding (optional here); url-safe letters are accepted too.
const BASE64_KEY = /^[A-Za-z0-9+/_-]{43}=?$/;

/** Where a secret lives: bound into the ciphertext, so a ciphertext copied to another row does not open. */
export interface SecretScope {
  workspaceId: string;
  name: string;
}

/** A sealed secret as stored in `workspace_secrets`: the key it was sealed with, the nonce, the ciphertext, the tag. */
export interface SealedSecret {
  /** First 8 hex characters of the SHA-256 of the key that sealed it (see `secretsKeyId`). */
  keyId: string;
  /** The 12-byte GCM nonce, random per seal. */
  iv: Uint8Array;
  ciphertext: Uint8Array;
  /** The 16-byte GCM authentication tag. */
  tag: Uint8Array;
}

/** Options of SecretBox: the keys as configured (`SECRETS_KEY`, `SECRETS_KEY_PREVIOUS`). */
export interface SecretBoxOptions {
  /** The current key, 32 bytes as base64 (or base64url) or 64 hex characters; every new seal uses it. */
  key: string;
  /**
   * Older keys in the same format, used only to open rows they sealed, so that
   * a key can be replaced without re-entering every secret at once.
   * @defaultValue []
   */
  previousKeys?: readonly string[];
}

/** Whether `text` is a usable key: 64 hex characters, or base64 of exactly 32 bytes. */
export function isSecretsKey(text: string): boolean {
  return HEX_KEY.test(text) || BASE64_KEY.test(text);
}

/** The 32 key bytes of a configured key; a malformed key throws CONFIG_INVALID (without echoing it). */
export function parseSecretsKey(text: string): Buffer {
  const trimmed = text.trim();
  if (HEX_KEY.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (BASE64_KEY.test(trimmed)) {
    const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length === KEY_BYTES) return key;
  }
  throw new AppError(ErrorCode.CONFIG_INVALID, 'a secrets key must be 32 bytes, as base64 or as 64 hex characters');
}

/** The id stored with each row: first 8 hex characters of the SHA-256 of the key (not enough to guess it). */
export function secretsKeyId(key: Uint8Array): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** A new random key, as base64: what `npm start` writes to `.data/secrets.key` on first run. */
export function newSecretsKey(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}

/** The additional authenticated data: the row's identity, with NUL separators (neither part can hold a NUL). */
function aadOf(scope: SecretScope): Buffer {
  return Buffer.from(`switchyard/workspace-secret/v1\u0000${scope.workspaceId}\u0000${scope.name}`, 'utf8');
}

/**
 * AES-256-GCM for workspace secrets. Each seal uses a random 12-byte nonce and
 * the workspace id and secret name as additional authenticated data; a row
 * records the id of its key, so rows sealed with a previous key still open
 * while the current key seals everything new. A tampered, misplaced or
 * foreign ciphertext throws instead of returning garbage.
 */
export class SecretBox {
  /** Id of the current key: what `seal` stamps on each row. */
  readonly keyId: string;
  // A true private field: the key bytes never show up when the box is logged or serialized.
  readonly #keys = new Map<string, Buffer>();

  constructor(options: SecretBoxOptions) {
    const current = parseSecretsKey(options.key);
    this.keyId = secretsKeyId(current);
    this.#keys.set(this.keyId, current);
    for (const text of options.previousKeys ?? []) {
      const key = parseSecretsKey(text);
      const id = secretsKeyId(key);
      const known = this.#keys.get(id);
      if (known && !known.equals(key)) {
        throw new AppError(ErrorCode.CONFIG_INVALID, 'two different secrets keys have the same key id: generate a new key', { keyId: id });
      }
      this.#keys.set(id, key);
    }
  }

  /** Whether a row sealed with this key id can be opened (the current key or a previous one). */
  canOpen(keyId: string): boolean {
    return this.#keys.has(keyId);
  }

  /** Encrypts `value` for the row `scope`, with the current key. */
  seal(scope: SecretScope, value: string): SealedSecret {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#keys.get(this.keyId)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aadOf(scope));
    const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return { keyId: this.keyId, iv, ciphertext, tag: cipher.getAuthTag() };
  }

  /**
   * Decrypts a row of `scope`. Throws INTERNAL (with the scope and key id,
   * never key material) when its key is not configured, or when the
   * ciphertext, nonce, tag or scope do not match what was sealed.
   */
  open(scope: SecretScope, sealed: SealedSecret): string {
    const key = this.#keys.get(sealed.keyId);
    const where = { workspaceId: scope.workspaceId, name: scope.name, keyId: sealed.keyId };
    if (!key) {
      throw new AppError(ErrorCode.INTERNAL, 'the secret was sealed with a key that is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS', where);
    }
    if (sealed.iv.length !== IV_BYTES || sealed.tag.length !== TAG_BYTES) {
      throw new AppError(ErrorCode.INTERNAL, 'the stored secret has a nonce or tag of the wrong length', where);
    }
    try {
      const decipher = createDecipheriv(ALGORITHM, key, sealed.iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(aadOf(scope));
      decipher.setAuthTag(sealed.tag);
      return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
    } catch (error) {
      throw new AppError(ErrorCode.INTERNAL, 'the stored secret does not authenticate (tampered, moved or wrong key)', where, { cause: error });
    }
  }
}
