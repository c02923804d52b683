const HYPHENATED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const COMPACT = /^[0-9a-f]{32}$/i;

/** A UUID given hyphenated or as 32 hex digits, in canonical lower-case form; null when it is not one. */
export function normalizeUuid(value: string): string | null {
  if (HYPHENATED.test(value)) return value.toLowerCase();
  if (COMPACT.test(value)) {
    const hex = value.toLowerCase();
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  return null;
}
