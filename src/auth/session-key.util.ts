import { createHash, randomBytes } from 'node:crypto';

export const SESSION_KEY_HEADER = 'x-session-api-key';
const USER_ID_PATTERN = /^[A-Za-z0-9_.@-]{1,64}$/;

/** Keys are 256 random bits, so a plain SHA-256 is a safe and constant-cost lookup hash. */
export function hashSessionKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateSessionKey(): string {
  return `sk-acs-${randomBytes(32).toString('base64url')}`;
}

export function isValidUserId(user: string): boolean {
  return USER_ID_PATTERN.test(user);
}
