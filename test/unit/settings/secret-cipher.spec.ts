import { randomBytes } from 'node:crypto';
import { SecretCipher, SecretDecryptionError } from '../../../src/settings/secret-cipher.js';

describe('SecretCipher', () => {
  const key = randomBytes(32);
  const cipher = new SecretCipher(key);
  const secret = 'sk-live-0123456789 ünïcödé 🔑';

  it('decrypts what it encrypted', () => {
    expect(cipher.decrypt(cipher.encrypt(secret))).toBe(secret);
    expect(cipher.decrypt(cipher.encrypt(''))).toBe('');
    expect(cipher.decrypt(cipher.encrypt(secret, 'settings:alice'), 'settings:alice')).toBe(secret);
  });

  it('never contains the plain text', () => {
    const encrypted = cipher.encrypt(secret);
    expect(encrypted.startsWith('v1:')).toBe(true);
    expect(encrypted).not.toContain('sk-live');
    expect(Buffer.from(encrypted.slice(3), 'base64').toString('latin1')).not.toContain('sk-live');
  });

  it('uses a different IV each time, so equal secrets give different ciphertexts', () => {
    const ciphertexts = new Set(Array.from({ length: 50 }, () => cipher.encrypt(secret)));
    expect(ciphertexts.size).toBe(50);
    const ivs = new Set([...ciphertexts].map((text) => Buffer.from(text.slice(3), 'base64').subarray(0, 12).toString('hex')));
    expect(ivs.size).toBe(50);
  });

  it('detects any altered byte', () => {
    const packed = Buffer.from(cipher.encrypt(secret).slice(3), 'base64');
    for (const index of [0, 11, 12, 27, 28, packed.length - 1]) {
      const tampered = Buffer.from(packed);
      tampered[index] ^= 0x01;
      expect(() => cipher.decrypt(`v1:${tampered.toString('base64')}`)).toThrow(SecretDecryptionError);
    }
  });

  it('refuses a truncated or unknown ciphertext', () => {
    const encrypted = cipher.encrypt(secret);
    expect(() => cipher.decrypt(encrypted.slice(0, 20))).toThrow(SecretDecryptionError);
    expect(() => cipher.decrypt(encrypted.slice(3))).toThrow(SecretDecryptionError);
    expect(() => cipher.decrypt('v1:')).toThrow(SecretDecryptionError);
  });

  it('refuses another key or another context', () => {
    const encrypted = cipher.encrypt(secret, 'settings:alice');
    expect(() => new SecretCipher(randomBytes(32)).decrypt(encrypted, 'settings:alice')).toThrow(SecretDecryptionError);
    expect(() => cipher.decrypt(encrypted, 'settings:bob')).toThrow(SecretDecryptionError);
    expect(() => cipher.decrypt(encrypted)).toThrow(SecretDecryptionError);
  });

  it('needs a 32-byte key', () => {
    expect(() => new SecretCipher(randomBytes(16))).toThrow(/32-byte/);
  });
});
