import { mcpServerSpecs } from '../../../../src/agent/mcp/mcp-servers.js';

describe('mcpServerSpecs', () => {
  it('reads the settings shape: stdio, SSE and streamable HTTP lists', () => {
    expect(
      mcpServerSpecs({
        stdio_servers: [{ name: 'fs', command: 'npx', args: ['mcp-fs'], env: { ROOT: '/w', BAD: 3 } }],
        sse_servers: [{ url: 'http://h/sse', api_key: 'k1' }],
        shttp_servers: [{ url: 'http://h/mcp', api_key: null }],
      }),
    ).toEqual([
      { transport: 'stdio', name: 'fs', command: 'npx', args: ['mcp-fs'], env: { ROOT: '/w' } },
      { transport: 'sse', name: 'sse-0', url: 'http://h/sse', apiKey: 'k1' },
      { transport: 'shttp', name: 'shttp-0', url: 'http://h/mcp', apiKey: null },
    ]);
  });

  it('reads the reference shape: mcpServers by name, a url ending in /sse meaning SSE', () => {
    expect(
      mcpServerSpecs({
        mcpServers: {
          local: { command: 'node', args: ['server.js'] },
          events: { url: 'http://h/sse' },
          api: { url: 'http://h/mcp', api_key: 'k2' },
        },
      }),
    ).toEqual([
      { transport: 'stdio', name: 'local', command: 'node', args: ['server.js'], env: {} },
      { transport: 'sse', name: 'events', url: 'http://h/sse', apiKey: null },
      { transport: 'shttp', name: 'api', url: 'http://h/mcp', apiKey: 'k2' },
    ]);
  });

  it('ignores what it cannot use', () => {
    expect(mcpServerSpecs(null)).toEqual([]);
    expect(mcpServerSpecs({ stdio_servers: [{ name: 'no command' }], mcpServers: { odd: {} } })).toEqual([]);
  });
});
