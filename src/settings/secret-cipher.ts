import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Ciphertexts carry their format version so the scheme can change without guessing. */
const FORMAT_PREFIX = 'v1:';

export class SecretDecryptionError extends Error {
  constructor(message = 'The stored secret cannot be decrypted: wrong SECRETS_KEY or tampered data') {
    super(message);
    this.name = 'SecretDecryptionError';
  }
}

/**
 * AES-256-GCM with a random 96-bit IV per encryption. The output is
 * `v1:` + base64(iv | tag | ciphertext). The optional context is authenticated
 * (not stored): a ciphertext made for one context, e.g. one user's row, fails to
 * decrypt under another, so rows cannot be swapped between users.
 */
export class SecretCipher {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('SecretCipher needs a 32-byte key');
  }

  encrypt(plaintext: string, context = ''): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return FORMAT_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
  }

  /** Throws SecretDecryptionError for a wrong key, another context, or any altered byte. */
  decrypt(encoded: string, context = ''): string {
    if (!encoded.startsWith(FORMAT_PREFIX)) throw new SecretDecryptionError('Unknown secret format');
    const packed = Buffer.from(encoded.slice(FORMAT_PREFIX.length), 'base64');
    if (packed.length < IV_BYTES + TAG_BYTES) throw new SecretDecryptionError('The stored secret is truncated');
    const iv = packed.subarray(0, IV_BYTES);
    const tag = packed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
    const ciphertext = packed.subarray(IV_BYTES + TAG_BYTES);
    try {
      const decipher = createDecipheriv(ALGORITHM, this.key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretDecryptionError();
    }
  }
}
