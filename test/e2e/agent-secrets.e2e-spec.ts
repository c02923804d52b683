import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { allEvents, waitForStatus } from '../support/agent-helpers.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { HttpClient } from '../support/http-client.js';
import { ALICE_KEY, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase } from '../support/test-database.js';
import { createAgentConversation } from './agent.support.js';

const STATIC_VALUE = 'static-secret-value-4471';
const LOOKED_UP_VALUE = 'looked-up-secret-value-9902';

describe('agent: conversation secrets reach the shell, never the log', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ServiceProcess;
  let llm: FakeLlm;
  let alice: HttpClient;
  let vault: http.Server;
  let vaultUrl: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    llm = await startFakeLlm();
    // A secret store the LookupSecret is fetched from, checking the header it was given.
    vault = http.createServer((req, res) => {
      if (req.headers.authorization !== 'Bearer vault-token') return void res.writeHead(401).end();
      res.end(`${LOOKED_UP_VALUE}\n`);
    });
    await new Promise<void>((resolve) => vault.listen(0, '127.0.0.1', resolve));
    vaultUrl = `http://127.0.0.1:${(vault.address() as AddressInfo).port}/secret`;
    service = await startServiceProcess({ databaseUrl: database.url, env: { LLM_MAX_RETRIES: '0' } });
    alice = new HttpClient(service.url, ALICE_KEY);
  });
  afterAll(async () => {
    await service?.stop();
    await llm?.close();
    await new Promise((resolve) => vault?.close(resolve));
    await database?.drop();
  });

  it('gives static and looked-up secrets to the terminal as variables, masks them in output, names them in the prompt', async () => {
    const { id } = await createAgentConversation(alice, llm, { secrets: { DEPLOY_TOKEN: STATIC_VALUE } });
    expect((await alice.post(`/api/conversations/${id}/secrets`, {
      body: { secrets: { VAULT_SECRET: { kind: 'LookupSecret', url: vaultUrl, headers: { Authorization: 'Bearer vault-token' } } } },
    })).status).toBe(200);
    const firstRequest = llm.requests.length;
    llm.enqueue(
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo "len=${#DEPLOY_TOKEN} got=$DEPLOY_TOKEN vault=$VAULT_SECRET"' } }] },
      { text: 'done' },
    );
    await alice.post(`/api/conversations/${id}/events`, { body: { content: [{ text: 'Use the token' }], run: true } });
    expect((await waitForStatus(alice, id)).execution_status).toBe('finished');

    const events = await allEvents(alice, id);
    const output = events.find((event) => event.kind === 'ObservationEvent' && event.tool_name === 'terminal')!.observation.content[0].text;
    expect(output).toContain(`len=${STATIC_VALUE.length}`);
    expect(output).toContain('got=<secret-hidden>');
    expect(output).toContain('vault=<secret-hidden>');
    const systemPrompt = events.find((event) => event.kind === 'SystemPromptEvent')!.system_prompt.text;
    expect(systemPrompt).toContain('$DEPLOY_TOKEN');
    expect(systemPrompt).toContain('$VAULT_SECRET');

    const everything = [JSON.stringify(events), JSON.stringify(llm.requests.slice(firstRequest).map((request) => request.body)), service.output()].join('\n');
    for (const secret of [STATIC_VALUE, LOOKED_UP_VALUE]) expect(everything).not.toContain(secret);
  });
});
