// One run's steps as a user sees them: parallel calls, unusable calls, retries, text replies,
// run conflicts, limits, stuck detection, stats, an unconfigured model and where the LLM key may appear.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { HttpClient } from '../support/http-client.js';
import { ALICE_KEY, BOB_KEY, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase } from '../support/test-database.js';
import { allEvents } from '../support/agent-helpers.js';
import {
  createAgentConversation,
  eventCount,
  expectAllValid,
  kinds,
  LLM_KEY,
  expectWellFormedRequests,
  runTurn,
  sendMessage,
  statusChanges,
  toolMessage,
  waitForRunEnd,
  type Ev,
} from './agent.support.js';

describe('agent: the steps of a run', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ServiceProcess;
  let llm: FakeLlm;
  let alice: HttpClient;
  /** Every API response body of the suite, searched for the LLM key at the end. */
  const responses: string[] = [];
  const track = <T extends { text: string }>(result: T): T => {
    responses.push(result.text);
    return result;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    llm = await startFakeLlm();
    service = await startServiceProcess({
      databaseUrl: database.url,
      env: { LLM_MAX_RETRIES: '1', LLM_TIMEOUT_MS: '5000', TERMINAL_SOFT_TIMEOUT_MS: '3000', LOG_LEVEL: 'trace' },
    });
    alice = new HttpClient(service.url, ALICE_KEY);
  });
  beforeEach(() => llm.reset());
  // Every request the service made in a test must be one a real OpenAI-compatible server accepts.
  afterEach(() => expectWellFormedRequests(llm));
  afterAll(async () => {
    await service?.stop();
    await llm?.close();
    await database?.drop();
  });

  it('parallel tool calls share one llm_response_id, the thought is on the first only, results come in call order', async () => {
    const { id } = await createAgentConversation(alice, llm);
    llm.enqueue(
      {
        text: 'Let me look at a few things at once.',
        toolCalls: [
          { name: 'think', arguments: { thought: 'first the files' } },
          { name: 'terminal', arguments: { command: 'echo one', security_risk: 'LOW' } },
          { name: 'terminal', arguments: { command: 'echo two', security_risk: 'LOW' } },
        ],
      },
      { toolCalls: [{ name: 'finish', arguments: { message: 'Looked.' } }] },
    );
    const { record, events } = await runTurn(alice, id, 'Look around');
    expect(record.execution_status).toBe('finished');
    expectAllValid(events);

    const actions = events.filter((event) => event.kind === 'ActionEvent');
    const batch = actions.slice(0, 3);
    expect(batch.map((event) => event.tool_name)).toEqual(['think', 'terminal', 'terminal']);
    expect(new Set(batch.map((event) => event.llm_response_id)).size).toBe(1);
    expect(batch[0].llm_response_id).toEqual(expect.any(String));
    expect(batch[0].thought).toEqual([expect.objectContaining({ type: 'text', text: 'Let me look at a few things at once.' })]);
    expect(batch[1].thought).toEqual([]);
    expect(batch[2].thought).toEqual([]);
    // The finish of the next response has its own id.
    expect(actions[3].llm_response_id).not.toBe(batch[0].llm_response_id);

    const observations = events.filter((event) => event.kind === 'ObservationEvent');
    expect(observations.slice(0, 3).map((event) => event.tool_call_id)).toEqual(batch.map((event) => event.tool_call_id));
    expect(observations.slice(0, 3).map((event) => event.action_id)).toEqual(batch.map((event) => event.id));
    expect(observations[1].observation.content[0].text).toContain('one');
    expect(observations[2].observation.content[0].text).toContain('two');
    // All three actions are stored before the first result.
    const order = kinds(events);
    expect(order.indexOf('ObservationEvent')).toBeGreaterThan(order.indexOf('ActionEvent') + 2);

    // The LLM gets the batch back as one assistant message with three calls, then the results in order.
    const second = llm.requests[1].body.messages as Ev[];
    const assistant = second.filter((message) => message.role === 'assistant');
    expect(assistant).toHaveLength(1);
    expect(assistant[0].tool_calls.map((call: Ev) => call.id)).toEqual(batch.map((event) => event.tool_call_id));
    const tools = second.filter((message) => message.role === 'tool');
    expect(tools.map((message) => message.tool_call_id)).toEqual(batch.map((event) => event.tool_call_id));
  });

  it('an unknown tool and malformed or invalid arguments get action null and errors the LLM reads; the run goes on', async () => {
    const { id } = await createAgentConversation(alice, llm);
    llm.enqueue(
      {
        toolCalls: [
          { name: 'terminal', arguments: { command: 'echo first-valid' }, id: 'call_first' },
          { name: 'no_such_tool', arguments: { x: 1 }, id: 'call_unknown' },
          { name: 'terminal', arguments: '{"command": "echo hi', id: 'call_malformed' },
          { name: 'terminal', arguments: { timeout: 5 }, id: 'call_invalid' },
          { name: 'terminal', arguments: { command: 'echo valid-call' }, id: 'call_valid' },
        ],
      },
      { toolCalls: [{ name: 'finish', arguments: { message: 'Recovered.' } }] },
    );
    const { record, events } = await runTurn(alice, id, 'Try things');
    expect(record.execution_status).toBe('finished');
    expectAllValid(events);

    const byCall = (callId: string, kind: string) => events.find((event) => event.kind === kind && event.tool_call_id === callId)!;
    for (const callId of ['call_unknown', 'call_malformed', 'call_invalid']) {
      expect(byCall(callId, 'ActionEvent')).toMatchObject({ action: null });
      expect(byCall(callId, 'AgentErrorEvent')).toBeDefined();
      expect(byCall(callId, 'ObservationEvent')).toBeUndefined();
    }
    expect(byCall('call_unknown', 'ActionEvent').tool_name).toBe('no_such_tool');
    expect(byCall('call_unknown', 'AgentErrorEvent').error).toMatch(/no_such_tool/);
    expect(byCall('call_malformed', 'AgentErrorEvent').error).toMatch(/JSON/);
    expect(byCall('call_invalid', 'AgentErrorEvent').error).toMatch(/command/);
    // The valid call of the same batch still ran.
    expect(byCall('call_valid', 'ActionEvent').action).toMatchObject({ kind: 'TerminalAction', command: 'echo valid-call' });
    expect(byCall('call_valid', 'ObservationEvent').observation.content[0].text).toContain('valid-call');

    // The next request shows the LLM each error as the result of its call.
    const next = llm.requests[1].body;
    expect(toolMessage(next, 'call_unknown')?.content).toMatch(/no_such_tool/);
    expect(toolMessage(next, 'call_malformed')?.content).toMatch(/JSON/);
    expect(toolMessage(next, 'call_invalid')?.content).toMatch(/command/);
    expect(toolMessage(next, 'call_valid')?.content).toContain('valid-call');
    const calls = (next.messages as Ev[]).flatMap((message) => message.tool_calls ?? []).map((call: Ev) => call.id);
    // One assistant message for the whole batch, each call answered right after it.
    expect(calls).toEqual(['call_first', 'call_unknown', 'call_malformed', 'call_invalid', 'call_valid']);
    expect(toolMessage(next, 'call_first')?.content).toContain('first-valid');
  });

  it('a message sent while a tool runs reaches the LLM after the tool result, not between the call and its result', async () => {
    const { id } = await createAgentConversation(alice, llm);
    llm.enqueue(
      { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 1.5; echo slow-done', security_risk: 'LOW' }, id: 'call_slow' }] },
      { text: 'Saw both.' },
    );
    const from = await eventCount(alice, id);
    await sendMessage(alice, id, 'Run the slow thing');
    const deadline = Date.now() + 10_000;
    while (!(await allEvents(alice, id)).some((event) => event.kind === 'ActionEvent')) {
      if (Date.now() > deadline) throw new Error('no ActionEvent');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await sendMessage(alice, id, 'Also, mind the time');
    const { record, events } = await waitForRunEnd(alice, id, from);
    expect(record.execution_status).toBe('finished');
    // Stored in the order things happened: the message lies between the call and its result.
    expect(kinds(events).slice(-4)).toEqual(['ActionEvent', 'MessageEvent', 'ObservationEvent', 'MessageEvent']);
    expect(llm.requests).toHaveLength(2);
    const roles = (llm.requests[1].body.messages as Ev[]).map((message) => message.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(toolMessage(llm.requests[1].body, 'call_slow')?.content).toContain('slow-done');
    expect(JSON.stringify(llm.requests[1].body.messages[4])).toContain('mind the time');
  });

  it('a 500 from the LLM is retried and the run finishes', async () => {
    const { id } = await createAgentConversation(alice, llm);
    llm.enqueue({ status: 500 }, { text: 'Answered after a retry.' });
    const { record, events } = await runTurn(alice, id, 'Hello?');
    expect(record.execution_status).toBe('finished');
    expect(llm.requests).toHaveLength(2);
    expect(events.some((event) => event.kind === 'ConversationErrorEvent')).toBe(false);
    const reply = events.filter((event) => event.kind === 'MessageEvent' && event.source === 'agent');
    expect(reply).toHaveLength(1);
    expect(reply[0].llm_message.content[0].text).toBe('Answered after a retry.');
    expectAllValid(events);
  });

  it('a text reply without tool calls is an agent MessageEvent with its llm_response_id, and the run finishes', async () => {
    const { id } = await createAgentConversation(alice, llm);
    llm.enqueue({ text: 'Paris is the capital of France.' });
    const { record, events } = await runTurn(alice, id, 'What is the capital of France?');
    expect(record.execution_status).toBe('finished');
    expect(kinds(events)).toEqual(['MessageEvent', 'SystemPromptEvent', 'MessageEvent']);
    const reply = events.filter((event) => event.kind === 'MessageEvent')[1];
    expect(reply).toMatchObject({
      source: 'agent',
      llm_message: { role: 'assistant', content: [expect.objectContaining({ type: 'text', text: 'Paris is the capital of France.' })] },
    });
    expect(reply.llm_response_id).toMatch(/^chatcmpl-fake-/);
    expect(statusChanges(events)).toEqual(['running', 'finished']);
    // The system prompt is stored after the first message but sent first.
    expect((llm.requests[0].body.messages as Ev[]).map((message) => message.role)).toEqual(['system', 'user']);
    expect(track(await alice.get(`/api/conversations/${id}/agent_final_response`)).body).toEqual({ response: 'Paris is the capital of France.' });
    expectAllValid(events);
  });

  it('POST run while running is 409; run when idle is 200 and runs', async () => {
    const { id } = await createAgentConversation(alice, llm);
    await sendMessage(alice, id, 'Say something, slowly', false);
    expect(track(await alice.get(`/api/conversations/${id}`)).body.execution_status).toBe('idle');
    llm.enqueue({ text: 'Slow answer.', delayMs: 1500 });
    const from = await eventCount(alice, id);
    const started = track(await alice.post(`/api/conversations/${id}/run`));
    expect(started.status).toBe(200);
    expect(started.body).toEqual({ success: true });
    await llm.waitForRequests(1);
    const again = track(await alice.post(`/api/conversations/${id}/run`));
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: expect.any(String) });
    const { record, events } = await waitForRunEnd(alice, id, from);
    expect(record.execution_status).toBe('finished');
    expect(llm.requests).toHaveLength(1); // the 409 started nothing
    expect(events.filter((event) => event.kind === 'MessageEvent' && event.source === 'agent')).toHaveLength(1);
  });

  it('max_iterations: 3 with an LLM that keeps thinking ends in MaxIterationsReached and status error', async () => {
    const { id } = await createAgentConversation(alice, llm, { max_iterations: 3 });
    for (let n = 0; n < 6; n++) llm.enqueue({ toolCalls: [{ name: 'think', arguments: { thought: `thought number ${n}` } }] });
    const { record, events } = await runTurn(alice, id, 'Think forever');
    expect(record.execution_status).toBe('error');
    expect(llm.requests).toHaveLength(3);
    const errors = events.filter((event) => event.kind === 'ConversationErrorEvent');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'MaxIterationsReached', detail: expect.stringContaining('3') });
    expect(events.filter((event) => event.kind === 'ActionEvent')).toHaveLength(3);
    expectAllValid(events);
  });

  it('the same terminal command with the same output four times in a row makes the conversation stuck', async () => {
    const { id } = await createAgentConversation(alice, llm);
    for (let n = 0; n < 6; n++) llm.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'echo same-output' } }] });
    const { record, events } = await runTurn(alice, id, 'Loop');
    expect(record.execution_status).toBe('stuck');
    expect(llm.requests).toHaveLength(4);
    const outputs = events.filter((event) => event.kind === 'ObservationEvent').map((event) => event.observation.content[0].text);
    expect(outputs).toHaveLength(4);
    expect(new Set(outputs).size).toBe(1);
    expectAllValid(events);
    // A new message lets the user get it going again.
    llm.enqueue({ text: 'Stopping the loop.' });
    const next = await runTurn(alice, id, 'Stop repeating yourself');
    expect(next.record.execution_status).toBe('finished');
  });

  it('the same failing call three times in a row makes the conversation stuck', async () => {
    const { id } = await createAgentConversation(alice, llm);
    for (let n = 0; n < 5; n++) llm.enqueue({ toolCalls: [{ name: 'no_such_tool', arguments: { path: '/x' } }] });
    const { record, events } = await runTurn(alice, id, 'Use a tool that does not exist');
    expect(record.execution_status).toBe('stuck');
    expect(llm.requests).toHaveLength(3);
    expect(events.filter((event) => event.kind === 'AgentErrorEvent')).toHaveLength(3);
  });

  it('calls after a finish in the same reply are dropped', async () => {
    const { id, dir } = await createAgentConversation(alice, llm);
    llm.enqueue({
      toolCalls: [
        { name: 'finish', arguments: { message: 'All done.' } },
        { name: 'terminal', arguments: { command: 'echo too-late > late.txt' } },
      ],
    });
    const { record, events } = await runTurn(alice, id, 'Finish');
    expect(record.execution_status).toBe('finished');
    expect(events.filter((event) => event.kind === 'ActionEvent').map((event) => event.tool_name)).toEqual(['finish']);
    expect(events.some((event) => event.tool_name === 'terminal')).toBe(false);
    expect(existsSync(join(dir, 'late.txt'))).toBe(false);
    expect(llm.requests).toHaveLength(1);
  });

  it('stats: each LLM call appends a stats state update with token counts, and the record carries the totals', async () => {
    const { id } = await createAgentConversation(alice, llm);
    llm.enqueue(
      { toolCalls: [{ name: 'think', arguments: { thought: 'plan' } }], usage: { prompt_tokens: 1000, completion_tokens: 50 } },
      { text: 'Done.', usage: { prompt_tokens: 1200, completion_tokens: 7 } },
    );
    const { events } = await runTurn(alice, id, 'Count tokens');
    const stats = events.filter((event) => event.kind === 'ConversationStateUpdateEvent' && event.key === 'stats');
    expect(stats).toHaveLength(2);
    const usage = (event: Ev) => event.value.usage_to_metrics.agent.accumulated_token_usage;
    expect(usage(stats[0])).toMatchObject({ prompt_tokens: 1000, completion_tokens: 50 });
    expect(usage(stats[1])).toMatchObject({ prompt_tokens: 2200, completion_tokens: 57 });
    const record = track(await alice.get(`/api/conversations/${id}`)).body;
    expect(record.stats).toEqual(stats[1].value);
    // The next run adds to the totals rather than starting again.
    llm.enqueue({ text: 'Again.', usage: { prompt_tokens: 10, completion_tokens: 1 } });
    await runTurn(alice, id, 'Once more');
    const after = track(await alice.get(`/api/conversations/${id}`)).body;
    expect(after.stats.usage_to_metrics.agent.accumulated_token_usage).toMatchObject({ prompt_tokens: 2210, completion_tokens: 58 });
  });

  it('a run with no model configured ends in a ConversationErrorEvent saying what to set, status error', async () => {
    const bob = new HttpClient(service.url, BOB_KEY);
    const created = track(
      await bob.post('/api/conversations', { body: { initial_message: { content: [{ type: 'text', text: 'Hi' }], run: true } } }),
    );
    expect(created.status).toBe(201);
    const { record, events } = await waitForRunEnd(bob, created.body.id, 0);
    expect(record.execution_status).toBe('error');
    const errors = events.filter((event) => event.kind === 'ConversationErrorEvent');
    expect(errors).toHaveLength(1);
    expect(errors[0].detail).toMatch(/llm_model/);
    expect(llm.requests).toHaveLength(0);
    expectAllValid(events);
  });

  it('anthropic/claude-sonnet-4-5 pointed at the fake server completes a tool call and finishes', async () => {
    const { id } = await createAgentConversation(alice, llm, {}, 'anthropic/claude-sonnet-4-5');
    llm.enqueue(
      { text: 'I will check.', toolCalls: [{ name: 'terminal', arguments: { command: 'echo from-anthropic', security_risk: 'LOW' } }] },
      { toolCalls: [{ name: 'finish', arguments: { message: 'Checked.' } }] },
    );
    const { record, events } = await runTurn(alice, id, 'Check via Claude');
    expect(record.execution_status).toBe('finished');
    expect(llm.requests.map((request) => [request.api, request.path])).toEqual([
      ['anthropic', '/v1/messages'],
      ['anthropic', '/v1/messages'],
    ]);
    // The SDK sends the key as x-api-key or (newer versions) as a bearer token.
    const { authorization, 'x-api-key': apiKey } = llm.requests[0].headers;
    expect([apiKey, authorization]).toContain(apiKey === undefined ? `Bearer ${LLM_KEY}` : LLM_KEY);
    expect(llm.requests[0].headers['anthropic-version']).toEqual(expect.any(String));
    expect(llm.requests[0].body.model).toBe('claude-sonnet-4-5');
    expect(JSON.stringify(llm.requests[0].body.system)).toContain('software engineering agent');
    const action = events.find((event) => event.kind === 'ActionEvent' && event.tool_name === 'terminal')!;
    expect(action).toMatchObject({ tool_call_id: expect.stringMatching(/^toolu_/), llm_response_id: expect.stringMatching(/^msg_fake_/) });
    expect(action.thought).toEqual([expect.objectContaining({ text: 'I will check.' })]);
    // The second request carries the tool_use and its tool_result.
    const messages = llm.requests[1].body.messages as Ev[];
    const blocks = messages.flatMap((message) => (Array.isArray(message.content) ? message.content : []));
    expect(blocks).toContainEqual(expect.objectContaining({ type: 'tool_use', id: action.tool_call_id, name: 'terminal' }));
    const result = blocks.find((block) => block.type === 'tool_result' && block.tool_use_id === action.tool_call_id);
    expect(JSON.stringify(result)).toContain('from-anthropic');
    expect(events.find((event) => event.kind === 'ObservationEvent' && event.tool_name === 'finish')).toBeDefined();
    expectAllValid(events);
  });

  it('anthropic: a thinking block is kept on the first action of a parallel batch and sent back signed', async () => {
    const { id } = await createAgentConversation(alice, llm, {}, 'anthropic/claude-sonnet-4-5');
    llm.enqueue(
      {
        thinking: 'Two quick checks in parallel.',
        toolCalls: [
          { name: 'terminal', arguments: { command: 'echo left', security_risk: 'LOW' } },
          { name: 'terminal', arguments: { command: 'echo right', security_risk: 'LOW' } },
        ],
      },
      { text: 'Both done.' },
    );
    const { record, events } = await runTurn(alice, id, 'Check both sides');
    expect(record.execution_status).toBe('finished');
    const actions = events.filter((event) => event.kind === 'ActionEvent');
    expect(actions).toHaveLength(2);
    expect(actions[0].thinking_blocks).toEqual([
      expect.objectContaining({ type: 'thinking', thinking: 'Two quick checks in parallel.', signature: expect.any(String) }),
    ]);
    expect(actions[1].thinking_blocks).toEqual([]);
    // One assistant turn: the signed thinking block, then both tool_use blocks; then one user turn with both results.
    const messages = llm.requests[1].body.messages as Ev[];
    const assistant = messages.filter((message) => message.role === 'assistant');
    expect(assistant).toHaveLength(1);
    expect(assistant[0].content.map((block: Ev) => block.type)).toEqual(['thinking', 'tool_use', 'tool_use']);
    expect(assistant[0].content[0].signature).toBe(actions[0].thinking_blocks[0].signature);
    const next = messages[messages.indexOf(assistant[0]) + 1];
    expect(next.role).toBe('user');
    expect(next.content.filter((block: Ev) => block.type === 'tool_result').map((block: Ev) => block.tool_use_id)).toEqual(
      actions.map((event) => event.tool_call_id),
    );
    expectAllValid(events);
  });

  it('a 401 echoing the key is an error without the key; the key is in no event, no response and no log line', async () => {
    const { id } = await createAgentConversation(alice, llm, { log_completions: true });
    llm.enqueue({ text: 'Logged completion.' });
    const first = await runTurn(alice, id, 'One call with completion logging');
    expect(first.record.execution_status).toBe('finished');
    expect(first.events.some((event) => event.kind === 'LLMCompletionLogEvent')).toBe(true);
    llm.enqueue({ status: 401 }, { status: 401 });
    const { record, events } = await runTurn(alice, id, 'Now with a key the provider refuses');
    expect(record.execution_status).toBe('error');
    const error = events.find((event) => event.kind === 'ConversationErrorEvent')!;
    expect(error).toMatchObject({ code: 'LlmAuthenticationError' });
    expect(error.detail).toMatch(/401/);
    // The fake LLM really did echo the key it was sent.
    expect(llm.requests[0].headers.authorization).toBe(`Bearer ${LLM_KEY}`);
    expectAllValid(events);

    // Everything the API serves about every conversation of the suite, and the service's output.
    const list = track(await alice.get('/api/conversations/search', { query: { limit: 100 } }));
    expect(list.body.items.length).toBeGreaterThanOrEqual(1);
    for (const item of list.body.items as Ev[]) {
      track(await alice.get(`/api/conversations/${item.id}`));
      responses.push(JSON.stringify(await allEvents(alice, item.id)));
    }
    const secretPart = LLM_KEY.slice(3);
    const leaks = responses.filter((text) => text.includes(secretPart));
    expect(leaks).toEqual([]);
    expect(service.output()).not.toContain(secretPart);
    // The key is held (masked), not lost.
    expect(list.body.items[0].agent.llm.api_key).toBe('**********');
  });
});
