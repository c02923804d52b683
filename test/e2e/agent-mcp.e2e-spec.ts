import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateEvent } from '../../src/events/dto/event-registry.js';
import { allEvents, llmAgent, waitForStatus } from '../support/agent-helpers.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { HttpClient } from '../support/http-client.js';
import { ALICE_KEY, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase, queryDatabase } from '../support/test-database.js';

const ECHO_SERVER = join(dirname(fileURLToPath(import.meta.url)), '../support/mcp-echo-server.mjs');

describe('agent: MCP servers', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ServiceProcess;
  let llm: FakeLlm;
  let alice: HttpClient;

  beforeAll(async () => {
    database = await createTestDatabase();
    llm = await startFakeLlm();
    service = await startServiceProcess({ databaseUrl: database.url, env: { LLM_MAX_RETRIES: '0', LLM_TIMEOUT_MS: '10000' } });
    alice = new HttpClient(service.url, ALICE_KEY);
  });
  afterAll(async () => {
    await service?.stop();
    await llm?.close();
    await database?.drop();
  });

  const runWith = async (agentExtra: Record<string, unknown>) => {
    const created = await alice.post('/api/conversations', { body: { agent: { ...llmAgent(llm.url), ...agentExtra } } });
    expect(created.status).toBe(201);
    llm.enqueue(
      { toolCalls: [{ name: 'echo_upper', arguments: { text: 'quiet words' } }] },
      { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] },
    );
    const firstRequest = llm.requests.length;
    await alice.post(`/api/conversations/${created.body.id}/events`, { body: { content: [{ text: 'shout it' }], run: true } });
    const record = await waitForStatus(alice, created.body.id);
    return { record, events: await allEvents(alice, created.body.id), request: llm.requests[firstRequest].body };
  };

  it('offers a stdio server\'s tools to the LLM and runs them (reference mcpServers shape)', async () => {
    const { record, events, request } = await runWith({
      mcp_config: { mcpServers: { echo: { command: process.execPath, args: [ECHO_SERVER] } } },
    });
    expect(record.execution_status).toBe('finished');
    expect(request.tools.map((tool: { function: { name: string } }) => tool.function.name)).toContain('echo_upper');
    const systemPrompt = events.find((event) => event.kind === 'SystemPromptEvent')!;
    expect(systemPrompt.tools).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'MCPToolDefinition', mcp_tool: expect.objectContaining({ name: 'echo_upper' }) })]));
    const action = events.find((event) => event.kind === 'ActionEvent' && event.tool_name === 'echo_upper')!;
    expect(action.action).toEqual({ kind: 'MCPToolAction', data: { text: 'quiet words' } });
    const observation = events.find((event) => event.kind === 'ObservationEvent' && event.tool_name === 'echo_upper')!;
    expect(observation.observation).toMatchObject({ kind: 'MCPToolObservation', tool_name: 'echo_upper', is_error: false });
    expect(observation.observation.content[0].text).toBe('QUIET WORDS');
    for (const event of events) expect(validateEvent(event)).toEqual([]);
  });

  it('accepts the settings shape (stdio_servers) too, and a server that cannot start does not stop the run', async () => {
    const { record, events } = await runWith({
      mcp_config: {
        stdio_servers: [
          { name: 'broken', command: '/nonexistent/mcp-server', args: [], env: {} },
          { name: 'echo', command: process.execPath, args: [ECHO_SERVER], env: {} },
        ],
      },
    });
    expect(record.execution_status).toBe('finished');
    const observation = events.find((event) => event.kind === 'ObservationEvent' && event.tool_name === 'echo_upper')!;
    expect(observation.observation.content[0].text).toBe('QUIET WORDS');
  });

  it('keeps MCP credentials encrypted: masked in the record, absent from the row in plain text', async () => {
    const credential = 'mcp-credential-value-8841';
    const created = await alice.post('/api/conversations', {
      body: {
        agent: {
          ...llmAgent(llm.url),
          mcp_config: {
            mcpServers: { echo: { command: process.execPath, args: [ECHO_SERVER], env: { UPSTREAM_TOKEN: credential } } },
            sse_servers: [{ url: 'http://127.0.0.1:9/sse', api_key: credential }],
          },
        },
      },
    });
    expect(created.status).toBe(201);
    expect(created.text).not.toContain(credential);
    expect(created.body.agent.mcp_config.mcpServers.echo.env.UPSTREAM_TOKEN).toBe('**********');
    expect(created.body.agent.mcp_config.mcpServers.echo.command).toBe(process.execPath);
    expect((await alice.get(`/api/conversations/${created.body.id}`)).text).not.toContain(credential);
    const [row] = await queryDatabase(database.url, 'SELECT row_to_json(c)::text AS row FROM conversations c WHERE id = $1', [created.body.id]);
    expect(String(row.row)).not.toContain(credential);
    // The real server still gets its env: the run works.
    llm.enqueue({ toolCalls: [{ name: 'echo_upper', arguments: { text: 'ok' } }] }, { text: 'done' });
    await alice.post(`/api/conversations/${created.body.id}/events`, { body: { content: [{ text: 'go' }], run: true } });
    expect((await waitForStatus(alice, created.body.id)).execution_status).toBe('finished');
  });
});
