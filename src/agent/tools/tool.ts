// The contract every agent tool implements, and the small shapes shared by all of them.
// Actions, observations and tool definitions are plain JSON objects shaped like the reference's
// (same field names, defaults and `kind`), so they can be stored in events as they are.

export type SecurityRisk = 'UNKNOWN' | 'LOW' | 'MEDIUM' | 'HIGH';
export const SECURITY_RISKS: readonly SecurityRisk[] = ['UNKNOWN', 'LOW', 'MEDIUM', 'HIGH'];

export type TextContent = { type: 'text'; text: string; cache_prompt: boolean };

export type JsonSchema = {
  type?: string | string[];
  description?: string;
  enum?: readonly unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  minimum?: number;
  default?: unknown;
  additionalProperties?: boolean;
};

export type JsonSchemaObject = JsonSchema & {
  type: 'object';
  properties: Record<string, JsonSchema>;
  required: string[];
};

export type ToolAction = { kind: string } & Record<string, unknown>;

/** Every observation has these; each tool adds its own fields. */
export type ToolObservation = {
  content: TextContent[];
  is_error: boolean;
  kind: string;
} & Record<string, unknown>;

export type ToolAnnotations = {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
};

/** The reference's ToolDefinition, as stored in SystemPromptEvent.tools. */
export type ToolDefinition = {
  description: string;
  action_type: string;
  observation_type: string | null;
  annotations: ToolAnnotations | null;
  meta: Record<string, unknown> | null;
  kind: string;
  title: string;
};

export interface ToolContext {
  /** Absolute path of the conversation's workspace; file tools never touch anything outside it. */
  workspaceDir: string;
  conversationId: string;
  /** Aborted when the run is cancelled; long operations stop early and report what they have. */
  signal?: AbortSignal;
  /** Extra environment for shells (the conversation's secrets), applied when a shell starts. */
  env?: Record<string, string>;
}

export interface AgentTool<A extends ToolAction = ToolAction, O extends ToolObservation = ToolObservation> {
  /** The function name the LLM calls. */
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the call's arguments, with `summary` and (for tools that change things) `security_risk`. */
  readonly parameters: JsonSchemaObject;
  readonly readOnly: boolean;
  /** Validates the LLM's arguments (an object or its JSON text) into the complete action; throws ToolArgumentError. */
  toAction(args: unknown): A;
  /** Runs the action. Problems the LLM can fix come back as an observation with `is_error: true`, not as an exception. */
  execute(action: A, ctx: ToolContext): Promise<O>;
  definition(): ToolDefinition;
  /** Releases what the tool holds for one conversation (a shell, an edit history). */
  dispose?(conversationId: string): Promise<void>;
  /** Releases everything, at shutdown. */
  close?(): Promise<void>;
}

/** Arguments the LLM got wrong; the message says what to send instead. The caller records it as an AgentErrorEvent. */
export class ToolArgumentError extends Error {
  constructor(
    readonly toolName: string,
    message: string,
  ) {
    super(message);
    this.name = 'ToolArgumentError';
  }
}

export function textContent(text: string): TextContent {
  return { type: 'text', text, cache_prompt: false };
}

export function buildToolDefinition(
  kind: string,
  name: string,
  description: string,
  actionType: string,
  observationType: string,
  hints: Omit<ToolAnnotations, 'title'>,
): ToolDefinition {
  return {
    description,
    action_type: actionType,
    observation_type: observationType,
    annotations: { title: name, ...hints },
    meta: null,
    kind,
    title: name,
  };
}

/** The tool as a function declaration for an LLM's function-calling API. */
export function functionDeclaration(tool: AgentTool): { name: string; description: string; parameters: JsonSchemaObject } {
  return { name: tool.name, description: tool.description, parameters: tool.parameters };
}
