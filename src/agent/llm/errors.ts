// Typed LLM failures. Their messages are built here from secret-free parts only: the SDK's own
// error object (which may hold a provider message echoing the key) is never attached as a cause.

export class LlmError extends Error {
  /** HTTP status the provider answered with, when there was one. */
  readonly status: number | null;

  constructor(message: string, status: number | null = null) {
    super(message);
    this.name = new.target.name;
    this.status = status;
  }
}

/** 401/403: the key is missing, wrong or lacks permission. */
export class LlmAuthenticationError extends LlmError {}

/** The provider says the prompt does not fit the model's context window. */
export class LlmContextWindowExceededError extends LlmError {}

/** 429 still answered after every retry. */
export class LlmRateLimitError extends LlmError {}

/** 5xx, connection failures and timeouts, after every retry. */
export class LlmUnavailableError extends LlmError {}

/** The provider answered with something we cannot use (no choices, unknown shape). */
export class LlmBadResponseError extends LlmError {}

/** Any other 4xx: unknown model, invalid parameters... Retrying will not help. */
export class LlmBadRequestError extends LlmError {}

/** The settings do not name a usable model (unknown provider set-up, missing base URL). */
export class LlmConfigurationError extends LlmError {}

/** The caller aborted the request through its AbortSignal. */
export class LlmAbortedError extends LlmError {}

const REDACTED = '[REDACTED]';
const MAX_PROVIDER_MESSAGE_CHARS = 500;

// Key-looking tokens a provider may echo back, whole or partly masked ("sk-proj-abc***wxyz").
const KEY_PATTERNS: Array<[RegExp, string]> = [
  [/\bsk-[A-Za-z0-9_*.-]{4,}/g, REDACTED],
  [/\b(Bearer\s+)[^\s"',]+/gi, `$1${REDACTED}`],
  [/\b((?:api[_-]?key|x-api-key)["':=\s]+)[^\s"',]+/gi, `$1${REDACTED}`],
];

/** Removes the given secrets and anything key-shaped from a provider's text, and caps its length. */
export function redactSecrets(text: string, secrets: Array<string | null | undefined> = []): string {
  let result = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) result = result.split(secret).join(REDACTED);
  }
  for (const [pattern, replacement] of KEY_PATTERNS) result = result.replace(pattern, replacement);
  return result.length > MAX_PROVIDER_MESSAGE_CHARS ? `${result.slice(0, MAX_PROVIDER_MESSAGE_CHARS)}…` : result;
}

const CONTEXT_WINDOW_MARKERS = [
  'context_length_exceeded',
  'context length',
  'context window',
  'maximum context',
  'prompt is too long',
  'too many tokens',
  'input is too long',
  'exceed context limit',
  'exceeds the context',
];

export function looksLikeContextWindowExceeded(...texts: Array<string | null | undefined>): boolean {
  const haystack = texts.filter(Boolean).join(' ').toLowerCase();
  return CONTEXT_WINDOW_MARKERS.some((marker) => haystack.includes(marker));
}

/** What both SDKs' failures boil down to, before they become an LlmError. */
export type ProviderFailure =
  | { kind: 'status'; status: number; providerMessage: string; providerCode: string | null }
  | { kind: 'timeout' }
  | { kind: 'connection' }
  | { kind: 'aborted' }
  | { kind: 'malformed' }
  | { kind: 'unknown'; errorName: string };

export interface AttemptContext {
  callerSignal?: AbortSignal;
  elapsedMs: number;
  timeoutMs: number;
}

/**
 * A connection failure whose cause is an abort the caller did not ask for is the SDK's own timeout.
 * The SDKs tell by the abort error's name, which is lost when fetch runs in another realm (jest's VM),
 * so having waited at least one full timeout also counts: a refused connection fails at once.
 */
export function connectionFailureKind(error: Error, attempt: AttemptContext): 'timeout' | 'connection' {
  if (attempt.callerSignal?.aborted) return 'connection';
  const cause = (error as { cause?: unknown }).cause;
  const causeName = cause instanceof Object && 'name' in cause ? String(cause.name) : '';
  return causeName === 'AbortError' || attempt.elapsedMs >= attempt.timeoutMs ? 'timeout' : 'connection';
}

export function toLlmError(
  failure: ProviderFailure,
  context: { provider: string; attempts: number; secrets: Array<string | null | undefined> },
): LlmError {
  const who = `LLM provider '${context.provider}'`;
  const tries = context.attempts === 1 ? '1 attempt' : `${context.attempts} attempts`;
  switch (failure.kind) {
    case 'timeout':
      return new LlmUnavailableError(`${who} did not answer in time (${tries})`);
    case 'connection':
      return new LlmUnavailableError(`${who} could not be reached (${tries})`);
    case 'aborted':
      return new LlmAbortedError(`${who} request was aborted`);
    case 'malformed':
      return new LlmBadResponseError(`${who} answered with a body that is not valid JSON`);
    case 'unknown':
      return new LlmUnavailableError(`${who} request failed (${failure.errorName})`);
    case 'status':
      return statusToLlmError(failure, who, tries, context.secrets);
  }
}

function statusToLlmError(
  failure: Extract<ProviderFailure, { kind: 'status' }>,
  who: string,
  tries: string,
  secrets: Array<string | null | undefined>,
): LlmError {
  const { status } = failure;
  const detail = redactSecrets(failure.providerMessage, secrets);
  const said = detail ? `: ${detail}` : '';
  if (status === 401 || status === 403) {
    return new LlmAuthenticationError(`${who} rejected the credentials (HTTP ${status})${said}`, status);
  }
  if (status === 429) {
    return new LlmRateLimitError(`${who} is rate limiting requests (HTTP 429, ${tries})${said}`, status);
  }
  if (status >= 500 || status === 408 || status === 409) {
    return new LlmUnavailableError(`${who} failed (HTTP ${status}, ${tries})${said}`, status);
  }
  // Checked after 429: rate-limit messages talk about "tokens" too.
  if (status === 413 || looksLikeContextWindowExceeded(failure.providerCode, failure.providerMessage)) {
    return new LlmContextWindowExceededError(`${who} says the context window is exceeded (HTTP ${status})${said}`, status);
  }
  return new LlmBadRequestError(`${who} refused the request (HTTP ${status})${said}`, status);
}
