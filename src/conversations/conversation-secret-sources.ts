import { RequestValidationException, type LocPart } from '../common/validation/validation-issue.js';

// The reference's SecretSource (StaticSecret | LookupSecret) and SecurityAnalyzerBase shapes, checked
// field by field: what is stored is exactly one of them, with its defaults.

export type SecretSource =
  | { kind: 'StaticSecret'; value: string | null; description: string | null }
  | { kind: 'LookupSecret'; url: string; headers: Record<string, string>; description: string | null };

const MAX_SECRET_NAME_CHARS = 256;

function invalid(loc: LocPart[], msg: string, type = 'value_error'): RequestValidationException {
  return RequestValidationException.single(loc, msg, type);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refuseExtraFields(value: Record<string, unknown>, allowed: string[], loc: LocPart[]): void {
  const extra = Object.keys(value).find((key) => !allowed.includes(key));
  if (extra !== undefined) throw invalid([...loc, extra], 'Extra inputs are not permitted', 'extra_forbidden');
}

function optionalString(value: Record<string, unknown>, field: string, loc: LocPart[]): string | null {
  const item = value[field];
  if (item === undefined || item === null) return null;
  if (typeof item !== 'string') throw invalid([...loc, field], 'Input should be a valid string', 'string_type');
  return item;
}

/** One secret of UpdateSecretsRequest: a plain string is a StaticSecret's value, as the reference reads it. */
export function toSecretSource(value: unknown, loc: LocPart[]): SecretSource {
  if (typeof value === 'string') return { kind: 'StaticSecret', value, description: null };
  if (!isPlainObject(value)) throw invalid(loc, 'Input should be a string or a StaticSecret / LookupSecret object', 'model_type');
  switch (value.kind) {
    case 'StaticSecret':
      refuseExtraFields(value, ['kind', 'value', 'description'], loc);
      return { kind: 'StaticSecret', value: optionalString(value, 'value', loc), description: optionalString(value, 'description', loc) };
    case 'LookupSecret': {
      refuseExtraFields(value, ['kind', 'url', 'headers', 'description'], loc);
      const url = optionalString(value, 'url', loc);
      if (!url) throw invalid([...loc, 'url'], 'Field required', 'missing');
      const headers = value.headers ?? {};
      if (!isPlainObject(headers) || Object.values(headers).some((header) => typeof header !== 'string')) {
        throw invalid([...loc, 'headers'], 'Input should be an object of strings', 'dict_type');
      }
      return { kind: 'LookupSecret', url, headers: headers as Record<string, string>, description: optionalString(value, 'description', loc) };
    }
    default:
      throw invalid([...loc, 'kind'], "Input should be 'StaticSecret' or 'LookupSecret'", 'literal_error');
  }
}

/** UpdateSecretsRequest.secrets, every name and value checked. */
export function toSecretSources(secrets: Record<string, unknown>): Record<string, SecretSource> {
  const result: Record<string, SecretSource> = {};
  for (const [name, value] of Object.entries(secrets)) {
    const loc = ['body', 'secrets', name];
    if (name.trim() === '' || name.length > MAX_SECRET_NAME_CHARS) {
      throw invalid(loc, `A secret name has 1 to ${MAX_SECRET_NAME_CHARS} characters`, 'string_too_long');
    }
    result[name] = toSecretSource(value, loc);
  }
  return result;
}

const GRAY_SWAN_DEFAULTS = {
  history_limit: 20,
  max_message_chars: 30_000,
  timeout: 30,
  low_threshold: 0.3,
  medium_threshold: 0.7,
  api_url: 'https://api.grayswan.ai/cygnal/monitor',
  policy_id: null as string | null,
};

export interface SecurityAnalyzerChoice {
  /** As stored and served: any api_key masked. */
  analyzer: Record<string, unknown> | null;
  /** The analyzer's api_key, to keep encrypted (null: none). */
  apiKey: string | null;
}

/** SetSecurityAnalyzerRequest.security_analyzer: null, LLMSecurityAnalyzer or GraySwanAnalyzer. */
export function toSecurityAnalyzer(value: unknown, maskedSecret: string): SecurityAnalyzerChoice {
  const loc = ['body', 'security_analyzer'];
  if (value === null) return { analyzer: null, apiKey: null };
  if (!isPlainObject(value)) throw invalid(loc, 'Input should be an object or null', 'model_type');
  if (value.kind === 'LLMSecurityAnalyzer') {
    refuseExtraFields(value, ['kind'], loc);
    return { analyzer: { kind: 'LLMSecurityAnalyzer' }, apiKey: null };
  }
  if (value.kind !== 'GraySwanAnalyzer') {
    throw invalid([...loc, 'kind'], "Input should be 'LLMSecurityAnalyzer' or 'GraySwanAnalyzer'", 'literal_error');
  }
  refuseExtraFields(value, ['kind', 'api_key', ...Object.keys(GRAY_SWAN_DEFAULTS)], loc);
  const analyzer: Record<string, unknown> = { kind: 'GraySwanAnalyzer' };
  for (const [field, fallback] of Object.entries(GRAY_SWAN_DEFAULTS)) {
    const given = value[field];
    if (given === undefined || given === null) {
      analyzer[field] = fallback;
    } else if (typeof fallback === 'number') {
      const isInteger = field === 'history_limit' || field === 'max_message_chars';
      if (typeof given !== 'number' || !Number.isFinite(given) || given < 0 || (isInteger && !Number.isInteger(given))) {
        throw invalid([...loc, field], isInteger ? 'Input should be a non-negative integer' : 'Input should be a non-negative number', isInteger ? 'int_type' : 'float_type');
      }
      analyzer[field] = given;
    } else {
      analyzer[field] = optionalString(value, field, loc);
    }
  }
  const apiKey = optionalString(value, 'api_key', loc) || null;
  analyzer.api_key = apiKey ? maskedSecret : null;
  return { analyzer, apiKey };
}
