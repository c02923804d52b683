import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { buildObservation } from '../../events/dto/event-registry.js';

export interface ToolContext {
  workspaceDir: string;
  conversationId: string;
}

export type JsonSchemaObject = Record<string, unknown>;

/** A tool as the LLM sees it, and how its calls become actions and observations. */
export interface AgentTool {
  name: string;
  description: string;
  parameters: JsonSchemaObject;
  /** Tools that change nothing never need the user's confirmation. */
  readOnly: boolean;
  /** The reference-shaped action (with its kind and defaults); throws ToolArgumentError on bad arguments. */
  toAction(args: Record<string, unknown>): Record<string, unknown>;
  /** The reference-shaped observation; failures the LLM can fix are observations with is_error. */
  execute(action: Record<string, unknown>, context: ToolContext): Promise<Record<string, unknown>>;
  /** The ToolDefinition stored in the SystemPromptEvent. */
  definition(): Record<string, unknown>;
}

export class ToolArgumentError extends Error {}

export function text(value: string) {
  return { type: 'text' as const, text: value, cache_prompt: false };
}

/** Every tool also takes a summary, and tools that change things a security_risk. */
export function callSchema(properties: Record<string, unknown>, required: string[], changesThings: boolean): JsonSchemaObject {
  return {
    type: 'object',
    properties: {
      ...properties,
      summary: { type: 'string', description: 'What this call does, in about 10 words' },
      ...(changesThings
        ? { security_risk: { type: 'string', enum: ['UNKNOWN', 'LOW', 'MEDIUM', 'HIGH'], description: 'How risky the action is' } }
        : {}),
    },
    required,
  };
}

export function toolDefinition(kind: string, tool: AgentTool, actionType: string, observationType: string) {
  return {
    kind,
    title: tool.name,
    description: tool.description,
    action_type: actionType,
    observation_type: observationType,
    annotations: { title: tool.name, readOnlyHint: tool.readOnly, destructiveHint: !tool.readOnly, idempotentHint: tool.readOnly, openWorldHint: false },
    meta: null,
  };
}

export function requireString(args: Record<string, unknown>, name: string): string {
  const value = args[name];
  if (typeof value !== 'string') throw new ToolArgumentError(`"${name}" is required and must be a string`);
  return value;
}

export function optionalString(args: Record<string, unknown>, name: string): string | null {
  const value = args[name];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new ToolArgumentError(`"${name}" must be a string`);
  return value;
}

export function errorObservation<K extends Parameters<typeof buildObservation>[0]>(kind: K, message: string, fields: Record<string, unknown> = {}) {
  return buildObservation(kind, { ...fields, content: [text(message)], is_error: true } as never) as unknown as Record<string, unknown>;
}

export class OutsideWorkspaceError extends Error {}

/**
 * The real path of `path` if it lies inside the workspace (symlinks resolved, so a link
 * pointing out is refused); missing files are resolved through their nearest existing parent.
 */
export async function confine(workspaceDir: string, path: string): Promise<string> {
  if (!isAbsolute(path)) throw new OutsideWorkspaceError(`The path must be absolute, e.g. ${resolve(workspaceDir, path)}`);
  const root = await realpath(workspaceDir);
  let existing = resolve(path);
  const missing: string[] = [];
  for (;;) {
    try {
      existing = await realpath(existing);
      break;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) break;
      missing.unshift(existing.slice(parent.length + 1));
      existing = parent;
    }
  }
  const full = resolve(existing, ...missing);
  const rel = relative(root, full);
  if (rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) {
    throw new OutsideWorkspaceError(`${path} is outside the workspace ${workspaceDir}`);
  }
  return full;
}

/** Keeps the head and tail of long output. */
export function capOutput(output: string, limit = 30_000): string {
  if (output.length <= limit) return output;
  const half = Math.floor(limit / 2);
  return `${output.slice(0, half)}\n[... ${output.length - limit} characters cut ...]\n${output.slice(-half)}`;
}
