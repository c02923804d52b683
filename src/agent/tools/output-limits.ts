/** Default cap on the text one observation carries, so a noisy command cannot flood the LLM's context. */
export const DEFAULT_MAX_OUTPUT_CHARS = 30_000;

/**
 * Keeps the beginning and the end of a long text (where commands print what they do and how
 * they ended) and replaces the middle with a note saying how much was left out.
 * `alreadyOmitted` counts characters dropped earlier, before the text reached this function.
 */
export function truncateMiddle(text: string, maxChars: number, alreadyOmitted = 0): string {
  if (text.length <= maxChars && alreadyOmitted === 0) return text;
  if (text.length <= maxChars) {
    const half = Math.floor(text.length / 2);
    return `${text.slice(0, half)}${omissionNote(alreadyOmitted)}${text.slice(half)}`;
  }
  const headLength = Math.floor(maxChars / 2);
  const tailLength = maxChars - headLength;
  const omitted = text.length - headLength - tailLength + alreadyOmitted;
  return `${text.slice(0, headLength)}${omissionNote(omitted)}${text.slice(text.length - tailLength)}`;
}

function omissionNote(omitted: number): string {
  return `\n[... ${omitted} characters of output omitted here ...]\n`;
}
