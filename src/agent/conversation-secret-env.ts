import { Logger } from '@nestjs/common';
import type { SecretSource } from '../conversations/conversation-secret-sources.js';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LOOKUP_TIMEOUT_MS = 10_000;
const MASK = '<secret-hidden>';
const logger = new Logger('ConversationSecrets');

/**
 * The conversation's secrets as shell environment: static values as they are, lookups fetched now
 * (GET url with its headers; the body is the value). Names that are not valid variable names, and
 * lookups that fail, are left out with a warning that names the secret, never its value.
 */
export async function secretEnvironment(secrets: Record<string, unknown> | undefined): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const [name, source] of Object.entries((secrets ?? {}) as Record<string, SecretSource>)) {
    if (!ENV_NAME.test(name)) {
      logger.warn(`Secret "${name}" is not a valid environment variable name; it is not given to the shell`);
      continue;
    }
    if (source?.kind === 'StaticSecret' && typeof source.value === 'string' && source.value) env[name] = source.value;
    if (source?.kind === 'LookupSecret') {
      try {
        const response = await fetch(source.url, { headers: source.headers, signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS) });
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        env[name] = (await response.text()).trim();
      } catch (error) {
        logger.warn(`Secret "${name}" could not be looked up: ${(error as Error).message}`);
      }
    }
  }
  return env;
}

/** Replaces every secret value in every string of `value` (deeply), so tool output never shows one. */
export function maskSecrets<T>(value: T, secretValues: string[]): T {
  const values = secretValues.filter((secret) => secret.length >= 4).sort((a, b) => b.length - a.length);
  if (values.length === 0) return value;
  const mask = (item: unknown): unknown => {
    if (typeof item === 'string') return values.reduce((text, secret) => text.split(secret).join(MASK), item);
    if (Array.isArray(item)) return item.map(mask);
    if (item && typeof item === 'object') return Object.fromEntries(Object.entries(item).map(([key, child]) => [key, mask(child)]));
    return item;
  };
  return mask(value) as T;
}
