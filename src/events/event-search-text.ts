/** Fields whose values are never searchable (opaque or secret material). */
const UNSEARCHABLE_KEYS = new Set(['encrypted_content', 'signature', 'data', 'image_urls', 'prompt_token_ids', 'response_token_ids']);
const MAX_SEARCH_TEXT = 200_000;

/**
 * The text the `query` filter matches: every string value of the event (message text, thoughts,
 * tool arguments, observation output, error text, summaries), lower-cased; keys never match.
 */
export function eventSearchText(event: Record<string, unknown>): string {
  const parts: string[] = [];
  let length = 0;
  const visit = (value: unknown, key: string | null) => {
    if (length > MAX_SEARCH_TEXT) return;
    if (key !== null && UNSEARCHABLE_KEYS.has(key)) return;
    if (typeof value === 'string') {
      if (key === 'id' || key === 'timestamp' || key === 'kind' || key === 'source' || key === 'type') return;
      parts.push(value);
      length += value.length + 1;
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, null);
    } else if (value && typeof value === 'object') {
      for (const [childKey, child] of Object.entries(value)) visit(child, childKey);
    }
  };
  visit(event, null);
  return parts.join('\n').toLowerCase().slice(0, MAX_SEARCH_TEXT);
}

/** A LIKE pattern matching `text` literally as a substring. */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}
