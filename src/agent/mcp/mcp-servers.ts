/** One MCP server to reach, from the settings' mcp_config or the reference's agent.mcp_config. */
export type McpServerSpec =
  | { transport: 'stdio'; name: string; command: string; args: string[]; env: Record<string, string> }
  | { transport: 'sse' | 'shttp'; name: string; url: string; apiKey: string | null };

type Loose = Record<string, unknown>;

const asString = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);
const asStrings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
const asEnv = (value: unknown): Record<string, string> =>
  value && typeof value === 'object'
    ? Object.fromEntries(Object.entries(value as Loose).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
    : {};

/**
 * Reads both shapes: ours (`sse_servers`, `shttp_servers`, `stdio_servers` lists) and the
 * reference's (`mcpServers: {name: {command, args, env} | {url, transport?}}`).
 */
export function mcpServerSpecs(config: unknown): McpServerSpec[] {
  if (!config || typeof config !== 'object') return [];
  const loose = config as Loose;
  const specs: McpServerSpec[] = [];
  for (const [index, server] of ((loose.stdio_servers as Loose[] | undefined) ?? []).entries()) {
    const command = asString(server?.command);
    if (command) specs.push({ transport: 'stdio', name: asString(server.name) ?? `stdio-${index}`, command, args: asStrings(server.args), env: asEnv(server.env) });
  }
  for (const [list, transport] of [['sse_servers', 'sse'], ['shttp_servers', 'shttp']] as const) {
    for (const [index, server] of ((loose[list] as Loose[] | undefined) ?? []).entries()) {
      const url = asString(server?.url);
      if (url) specs.push({ transport, name: `${transport}-${index}`, url, apiKey: asString(server.api_key) });
    }
  }
  for (const [name, server] of Object.entries((loose.mcpServers as Record<string, Loose> | undefined) ?? {})) {
    const command = asString(server?.command);
    const url = asString(server?.url);
    if (command) specs.push({ transport: 'stdio', name, command, args: asStrings(server.args), env: asEnv(server.env) });
    else if (url) {
      const transport = server.transport === 'sse' || url.endsWith('/sse') ? 'sse' : 'shttp';
      specs.push({ transport, name, url, apiKey: asString(server.api_key) ?? asString((server.headers as Loose | undefined)?.Authorization) });
    }
  }
  return specs;
}
