import { createHash, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { AppError, ErrorCode } from '@switchyard/contracts';
import { isSecretsKey, newSecretsKey, parseSecretsKey, redactSecrets, SecretBox, secretsKeyId, type SealedSecret } from '@switchyard/core';

const scope = { workspaceId: '0195f5a0-0000-7000-8000-000000000001', name: 'OPENAI_KEY' };
const flip = (bytes: Uint8Array, at = 0) => {
  const copy = Buffer.from(bytes);
  copy[at] = copy[at]! ^ 0x01;
  return copy;
};
const openFails = (box: SecretBox, sealed: SealedSecret, where = scope) => {
  let error: unknown;
  try {
    box.open(where, sealed);
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe(ErrorCode.INTERNAL);
  return error as AppError;
};

describe('secrets keys', () => {
  it('accepts 32 bytes as base64, base64url (padded or not) or 64 hex characters', () => {
    const bytes = randomBytes(32);
    for (const text of [bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('base64').replace('=', ''), bytes.toString('hex'), bytes.toString('hex').toUpperCase()]) {
      expect(isSecretsKey(text)).toBe(true);
      expect(parseSecretsKey(text).equals(bytes)).toBe(true);
    }
    expect(parseSecretsKey(newSecretsKey())).toHaveLength(32);
  });

  it.each([
    ['empty', ''],
    ['16 bytes of base64', randomBytes(16).toString('base64')],
    ['48 bytes of base64', randomBytes(48).toString('base64')],
    ['63 hex characters', randomBytes(32).toString('hex').slice(1)],
    ['a passphrase', 'correct horse battery staple correct horse battery'],
  ])('refuses %s with CONFIG_INVALID, without echoing it', (_what, text) => {
    expect(isSecretsKey(text)).toBe(false);
    let error: unknown;
    try {
      parseSecretsKey(text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe(ErrorCode.CONFIG_INVALID);
    if (text) expect(JSON.stringify({ message: (error as AppError).message, data: (error as AppError).data })).not.toContain(text);
  });

  it('ids a key by the first 8 hex characters of its SHA-256', () => {
    const key = randomBytes(32);
    expect(secretsKeyId(key)).toBe(createHash('sha256').update(key).digest('hex').slice(0, 8));
    expect(new SecretBox({ key: key.toString('hex') }).keyId).toBe(secretsKeyId(key));
  });
});

describe('SecretBox', () => {
  const box = new SecretBox({ key: newSecretsKey() });

  it('round-trips with a fresh 12-byte nonce and 16-byte tag each time, and the ciphertext is not the plaintext', () => {
    const value = 'sk-live-ünïcødé-' + randomBytes(8).toString('hex');
    const a = box.seal(scope, value);
    const b = box.seal(scope, value);
    expect(a.keyId).toBe(box.keyId);
    expect(a.iv).toHaveLength(12);
    expect(a.tag).toHaveLength(16);
    expect(Buffer.from(a.iv).equals(Buffer.from(b.iv))).toBe(false);
    expect(Buffer.from(a.ciphertext).equals(Buffer.from(b.ciphertext))).toBe(false);
    expect(Buffer.from(a.ciphertext).toString('utf8')).not.toContain(value);
    expect(box.open(scope, a)).toBe(value);
    expect(box.open(scope, b)).toBe(value);
  });

  it('refuses a tampered ciphertext, tag or nonce', () => {
    const sealed = box.seal(scope, 'hunter2-hunter2');
    openFails(box, { ...sealed, ciphertext: flip(sealed.ciphertext) });
    openFails(box, { ...sealed, tag: flip(sealed.tag, 15) });
    openFails(box, { ...sealed, iv: flip(sealed.iv, 11) });
    openFails(box, { ...sealed, tag: Buffer.from(sealed.tag).subarray(0, 12) });
  });

  it('refuses a ciphertext moved to another name or workspace (the AAD)', () => {
    const sealed = box.seal(scope, 'hunter2-hunter2');
    const error = openFails(box, sealed, { ...scope, name: 'OTHER_KEY' });
    expect(error.data).toEqual({ workspaceId: scope.workspaceId, name: 'OTHER_KEY', keyId: box.keyId });
    openFails(box, sealed, { ...scope, workspaceId: '0195f5a0-0000-7000-8000-000000000002' });
  });

  it('refuses a row of an unknown key, and a key id that lies about its key', () => {
    const other = new SecretBox({ key: newSecretsKey() });
    const sealed = other.seal(scope, 'value');
    expect(box.canOpen(sealed.keyId)).toBe(false);
    expect(openFails(box, sealed).message).toMatch(/SECRETS_KEY_PREVIOUS/);
    openFails(box, { ...sealed, keyId: box.keyId });
  });

  it('rotates: the new key seals, rows of a previous key still open, and rows of a dropped key do not', () => {
    const oldKey = newSecretsKey();
    const before = new SecretBox({ key: oldKey });
    const oldRow = before.seal(scope, 'from-the-old-key');
    const rotated = new SecretBox({ key: newSecretsKey(), previousKeys: [oldKey] });
    expect(rotated.keyId).not.toBe(before.keyId);
    expect(rotated.canOpen(before.keyId)).toBe(true);
    expect(rotated.open(scope, oldRow)).toBe('from-the-old-key');
    const newRow = rotated.seal(scope, 'from-the-new-key');
    expect(newRow.keyId).toBe(rotated.keyId);
    expect(before.canOpen(newRow.keyId)).toBe(false);
    openFails(new SecretBox({ key: newSecretsKey() }), oldRow);
  });

  it('never shows its key material when serialized or inspected', () => {
    const key = randomBytes(32);
    const shown = new SecretBox({ key: key.toString('base64') });
    const text = JSON.stringify(shown) + inspect(shown, { depth: 5, showHidden: true });
    expect(text).not.toContain(key.toString('hex'));
    expect(text).not.toContain(key.toString('base64'));
  });

  it('refuses a malformed previous key at construction', () => {
    expect(() => new SecretBox({ key: newSecretsKey(), previousKeys: ['nope'] })).toThrow(AppError);
  });
});

describe('redactSecrets', () => {
  it('replaces every occurrence of each value, longest first, and JSON-escaped values', () => {
    const text = 'key sk-abc and sk-abcdef, again sk-abc; json {"h":"to\\"k\\\\en"}';
    expect(redactSecrets(text, ['sk-abc', 'sk-abcdef', 'to"k\\en', ''])).toBe(
      'key [redacted] and [redacted], again [redacted]; json {"h":"[redacted]"}',
    );
  });

  it('leaves text without secrets unchanged', () => {
    expect(redactSecrets('nothing to see', ['sk-abc'])).toBe('nothing to see');
    expect(redactSecrets('nothing to see', [])).toBe('nothing to see');
  });
});
