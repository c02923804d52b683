// A real MCP server over stdio for the agent's end-to-end tests: one tool, `echo_upper`.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'echo-test-server', version: '1.0.0' });
server.registerTool(
  'echo_upper',
  {
    description: 'Returns the given text in upper case',
    inputSchema: { text: z.string() },
    annotations: { readOnlyHint: true },
  },
  async ({ text }) => ({ content: [{ type: 'text', text: text.toUpperCase() }] }),
);
await server.connect(new StdioServerTransport());
