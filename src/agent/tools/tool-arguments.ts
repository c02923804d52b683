// Reading the arguments an LLM sent for a tool call. Lenient where a model's intent is plain
// ("5" for 5, "true" for true, a JSON string for an array), strict where it is not, and every
// refusal names the argument and what would be accepted.

import { SECURITY_RISKS, ToolArgumentError, type JsonSchema, type JsonSchemaObject, type SecurityRisk } from './tool.js';

const SHARED_ARGUMENTS = ['summary', 'security_risk'];

export const SUMMARY_PARAMETER: JsonSchema = {
  type: 'string',
  description: 'A short description (about 10 words) of what this call does, shown to the person following along.',
};

export const SECURITY_RISK_PARAMETER: JsonSchema = {
  type: 'string',
  enum: SECURITY_RISKS,
  description:
    'Your estimate of the risk of this call: LOW (reads or harmless local changes), MEDIUM (changes that are hard to undo), ' +
    'HIGH (deletes data, touches secrets or systems outside the workspace), UNKNOWN when you cannot tell.',
};

/** A tool's parameter schema with the shared `summary` and, for tools that change things, `security_risk`. */
export function toolParameters(
  properties: Record<string, JsonSchema>,
  required: string[],
  options: { readOnly: boolean },
): JsonSchemaObject {
  const shared: Record<string, JsonSchema> = options.readOnly
    ? { summary: SUMMARY_PARAMETER }
    : { summary: SUMMARY_PARAMETER, security_risk: SECURITY_RISK_PARAMETER };
  return { type: 'object', properties: { ...properties, ...shared }, required, additionalProperties: false };
}

/** `summary` and `security_risk` of a tool call, for the ActionEvent; tolerant, since they never block a call. */
export function readSharedArguments(args: unknown): { summary: string | null; security_risk: SecurityRisk } {
  const object = typeof args === 'string' ? safeJsonParse(args) : args;
  if (!isPlainObject(object)) return { summary: null, security_risk: 'UNKNOWN' };
  const summary = typeof object.summary === 'string' && object.summary.trim() ? object.summary.trim() : null;
  const risk = typeof object.security_risk === 'string' ? object.security_risk.toUpperCase() : '';
  return { summary, security_risk: (SECURITY_RISKS as readonly string[]).includes(risk) ? (risk as SecurityRisk) : 'UNKNOWN' };
}

function safeJsonParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}

export class ToolArguments {
  private readonly values: Record<string, unknown>;

  /** Accepts an object or its JSON text; unknown argument names are refused (except the shared ones). */
  constructor(
    readonly toolName: string,
    raw: unknown,
    allowed: readonly string[],
  ) {
    let value: unknown = raw ?? {};
    if (typeof value === 'string') {
      const text = value.trim();
      value = text === '' ? {} : safeJsonParse(text);
      if (value === undefined) throw this.error('the arguments are not valid JSON; send a JSON object.');
    }
    if (!isPlainObject(value)) throw this.error(`the arguments must be a JSON object, got ${describe(value)}.`);
    const unknown = Object.keys(value).filter((key) => !allowed.includes(key) && !SHARED_ARGUMENTS.includes(key));
    if (unknown.length > 0) {
      throw this.error(`unknown argument(s) ${unknown.map((k) => `"${k}"`).join(', ')}; accepted: ${allowed.join(', ')}.`);
    }
    if (value.summary !== undefined && value.summary !== null && typeof value.summary !== 'string') {
      throw this.error('"summary" must be a string.');
    }
    const risk = value.security_risk;
    if (risk !== undefined && risk !== null && !(typeof risk === 'string' && (SECURITY_RISKS as readonly string[]).includes(risk.toUpperCase()))) {
      throw this.error(`"security_risk" must be one of ${SECURITY_RISKS.join(', ')}, got ${describe(risk)}.`);
    }
    this.values = value;
  }

  error(detail: string): ToolArgumentError {
    return new ToolArgumentError(this.toolName, detail);
  }

  has(key: string): boolean {
    return this.values[key] !== undefined && this.values[key] !== null;
  }

  requiredString(key: string): string {
    const value = this.values[key];
    if (typeof value !== 'string') throw this.error(`"${key}" is required and must be a string, got ${describe(value)}.`);
    return value;
  }

  optionalString(key: string): string | null {
    if (!this.has(key)) return null;
    return this.requiredString(key);
  }

  boolean(key: string, fallback: boolean): boolean {
    const value = this.values[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    throw this.error(`"${key}" must be true or false, got ${describe(value)}.`);
  }

  optionalNumber(key: string, options: { min: number; integer?: boolean }): number | null {
    const value = this.values[key];
    if (value === undefined || value === null) return null;
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    const kind = options.integer ? 'an integer' : 'a number';
    if (typeof number !== 'number' || !Number.isFinite(number) || (options.integer && !Number.isInteger(number))) {
      throw this.error(`"${key}" must be ${kind}, got ${describe(value)}.`);
    }
    if (number < options.min) throw this.error(`"${key}" must be ${kind} >= ${options.min}, got ${number}.`);
    return number;
  }

  enumValue<T extends string>(key: string, allowed: readonly T[], fallback?: T): T {
    const value = this.values[key];
    if ((value === undefined || value === null) && fallback !== undefined) return fallback;
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
    const what = value === undefined || value === null ? 'is required' : `is ${describe(value)}`;
    throw this.error(`"${key}" ${what}; it must be one of ${allowed.map((v) => `"${v}"`).join(', ')}.`);
  }

  /** An array, also accepted as its JSON text. */
  optionalArray(key: string): unknown[] | null {
    let value = this.values[key];
    if (value === undefined || value === null) return null;
    if (typeof value === 'string') value = safeJsonParse(value);
    if (!Array.isArray(value)) throw this.error(`"${key}" must be an array, got ${describe(this.values[key])}.`);
    return value;
  }
}
