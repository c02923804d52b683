import { Logger } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildAction, buildObservation } from '../../events/dto/event-registry.js';
import { ToolArgumentError, type AgentTool, type ToolAction, type ToolDefinition, type ToolObservation } from '../tools/index.js';
import type { McpServerSpec } from './mcp-servers.js';

const CONNECT_TIMEOUT_MS = 15_000;
const CALL_TIMEOUT_MS = Number(process.env.MCP_CALL_TIMEOUT_MS) || 120_000;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean; title?: string };
}

/** One tool of an MCP server, as the agent's other tools. */
class McpTool implements AgentTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: AgentTool['parameters'];
  readonly readOnly: boolean;

  constructor(
    private readonly client: Client,
    private readonly info: McpToolInfo,
    serverName: string,
  ) {
    this.name = info.name;
    this.description = info.description ?? `Tool ${info.name} of the MCP server ${serverName}`;
    const { $schema: _dialect, ...schema } = info.inputSchema ?? { type: 'object' };
    this.parameters = {
      ...schema,
      type: 'object',
      properties: {
        ...((schema.properties as Record<string, unknown>) ?? {}),
        summary: { type: 'string', description: 'What this call does, in about 10 words' },
        security_risk: { type: 'string', enum: ['UNKNOWN', 'LOW', 'MEDIUM', 'HIGH'] },
      },
    } as unknown as AgentTool['parameters'];
    this.readOnly = info.annotations?.readOnlyHint ?? false;
  }

  toAction(args: unknown): ToolAction {
    const parsed = typeof args === 'string' ? safeJson(args) : args;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new ToolArgumentError(this.name, 'the arguments must be a JSON object');
    }
    const { summary: _summary, security_risk: _risk, ...data } = parsed as Record<string, unknown>;
    return buildAction('MCPToolAction', { data }) as unknown as ToolAction;
  }

  async execute(action: ToolAction): Promise<ToolObservation> {
    const result = await this.client.callTool({ name: this.info.name, arguments: action.data as Record<string, unknown> }, undefined, {
      timeout: CALL_TIMEOUT_MS,
    });
    const items = Array.isArray(result.content) ? (result.content as Array<Record<string, unknown>>) : [];
    const content = items.map((item) => {
      if (item.type === 'text') return { type: 'text', text: String(item.text ?? ''), cache_prompt: false };
      if (item.type === 'image') return { type: 'image', image_urls: [`data:${item.mimeType};base64,${item.data}`], cache_prompt: false };
      return { type: 'text', text: JSON.stringify(item), cache_prompt: false };
    });
    return buildObservation('MCPToolObservation', {
      content: content as never,
      is_error: result.isError === true,
      tool_name: this.info.name,
    }) as unknown as ToolObservation;
  }

  definition(): ToolDefinition {
    return {
      kind: 'MCPToolDefinition',
      mcp_tool: { name: this.info.name, description: this.info.description ?? null, inputSchema: this.info.inputSchema, annotations: this.info.annotations ?? null },
      description: this.description,
      action_type: 'MCPToolAction',
      observation_type: 'MCPToolObservation',
      annotations: null,
      meta: null,
      title: this.info.annotations?.title ?? this.info.name,
    } as ToolDefinition;
  }
}

/** The tools of every configured MCP server, connected for one run and closed after it. */
export class McpToolSet {
  private static readonly logger = new Logger('McpToolSet');

  private constructor(
    readonly tools: AgentTool[],
    private readonly clients: Client[],
  ) {}

  /** Servers that cannot be reached are logged and skipped: the run goes on with the other tools. */
  static async connect(specs: McpServerSpec[], reservedNames: Set<string>): Promise<McpToolSet> {
    const tools: AgentTool[] = [];
    const clients: Client[] = [];
    for (const spec of specs) {
      const client = new Client({ name: 'agent-conversation-service', version: '0.1.0' });
      try {
        await withTimeout(client.connect(transportFor(spec)), CONNECT_TIMEOUT_MS, `MCP server ${spec.name} did not answer`);
        clients.push(client);
        const { tools: listed } = await client.listTools();
        for (const info of listed as McpToolInfo[]) {
          if (!TOOL_NAME.test(info.name) || reservedNames.has(info.name)) {
            McpToolSet.logger.warn(`MCP server ${spec.name}: tool "${info.name}" skipped (invalid or taken name)`);
            continue;
          }
          reservedNames.add(info.name);
          tools.push(new McpTool(client, info, spec.name));
        }
      } catch (error) {
        McpToolSet.logger.warn(`MCP server ${spec.name} unavailable: ${(error as Error).message}`);
        await client.close().catch(() => undefined);
      }
    }
    return new McpToolSet(tools, clients);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.clients.map((client) => client.close()));
  }
}

function transportFor(spec: McpServerSpec) {
  if (spec.transport === 'stdio') {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...spec.env };
    return new StdioClientTransport({ command: spec.command, args: spec.args, env, stderr: 'ignore' });
  }
  const headers: Record<string, string> = spec.apiKey ? { Authorization: spec.apiKey.startsWith('Bearer ') ? spec.apiKey : `Bearer ${spec.apiKey}` } : {};
  const url = new URL(spec.url);
  return spec.transport === 'sse'
    ? new SSEClientTransport(url, { requestInit: { headers } })
    : new StreamableHTTPClientTransport(url, { requestInit: { headers } });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
