// Confirmation policies, respond_to_confirmation, and pause.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { allEvents } from '../support/agent-helpers.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { HttpClient, type HttpResult } from '../support/http-client.js';
import { ALICE_KEY, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase, queryDatabase } from '../support/test-database.js';
import {
  createAgentConversation,
  eventCount,
  expectAllValid,
  expectWellFormedRequests,
  kinds,
  runTurn,
  sendMessage,
  statusChanges,
  toolMessage,
  waitForRunEnd,
  type Ev,
} from './agent.support.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('agent: confirmation and pause', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ServiceProcess;
  let llm: FakeLlm;
  let alice: HttpClient;
  const respond = (id: string, body: Record<string, unknown>) =>
    alice.post(`/api/conversations/${id}/events/respond_to_confirmation`, { body });

  beforeAll(async () => {
    database = await createTestDatabase();
    llm = await startFakeLlm();
    service = await startServiceProcess({ databaseUrl: database.url, env: { LLM_MAX_RETRIES: '0', LLM_TIMEOUT_MS: '10000' } });
    alice = new HttpClient(service.url, ALICE_KEY);
  });
  beforeEach(() => llm.reset());
  afterEach(() => expectWellFormedRequests(llm));
  afterAll(async () => {
    await service?.stop();
    await llm?.close();
    await database?.drop();
  });

  it('AlwaysConfirm: the step stops after its ActionEvents; accept runs them and the run continues', async () => {
    const { id, dir } = await createAgentConversation(alice, llm, { confirmation_policy: { kind: 'AlwaysConfirm' } });
    expect((await alice.get(`/api/conversations/${id}`)).body.confirmation_policy).toEqual({ kind: 'AlwaysConfirm' });
    llm.enqueue(
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo accepted > accepted.txt', security_risk: 'LOW' } }] },
      { toolCalls: [{ name: 'finish', arguments: { message: 'Wrote it.' } }] },
    );
    const { record, events } = await runTurn(alice, id, 'Write a file');
    expect(record.execution_status).toBe('waiting_for_confirmation');
    expect(kinds(events).slice(-1)).toEqual(['ActionEvent']);
    expect(events.some((event) => event.kind === 'ObservationEvent')).toBe(false);
    expect(existsSync(join(dir, 'accepted.txt'))).toBe(false);
    expect(llm.requests).toHaveLength(1);
    // Nothing runs while it waits: neither run nor a new message starts the loop.
    expect((await alice.post(`/api/conversations/${id}/run`)).status).toBe(409);

    const from = await eventCount(alice, id);
    const accepted = await respond(id, { accept: true });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ success: true });
    const after = await waitForRunEnd(alice, id, from);
    expect(after.record.execution_status).toBe('finished');
    expect(readFileSync(join(dir, 'accepted.txt'), 'utf8')).toBe('accepted\n');
    const action = events.filter((event) => event.kind === 'ActionEvent').pop()!;
    const observation = after.events.find((event) => event.kind === 'ObservationEvent' && event.action_id === action.id);
    expect(observation).toMatchObject({ tool_name: 'terminal', tool_call_id: action.tool_call_id });
    expect(llm.requests).toHaveLength(2);
    expect(toolMessage(llm.requests[1].body, action.tool_call_id)).toBeDefined();
    expect(statusChanges(after.events)).toEqual(['running', 'waiting_for_confirmation', 'running', 'finished']);
    expectAllValid(after.events);
  });

  it('reject with a reason: a UserRejectObservation per action, status idle, nothing ran; the LLM later reads the reason', async () => {
    const { id, dir } = await createAgentConversation(alice, llm, { confirmation_policy: { kind: 'AlwaysConfirm' } });
    llm.enqueue({
      toolCalls: [
        { name: 'terminal', arguments: { command: 'echo a > a.txt' } },
        { name: 'file_editor', arguments: { command: 'create', path: join(dir, 'b.txt'), file_text: 'b' } },
      ],
    });
    const { record, events } = await runTurn(alice, id, 'Make two files');
    expect(record.execution_status).toBe('waiting_for_confirmation');
    const actions = events.filter((event) => event.kind === 'ActionEvent');
    expect(actions).toHaveLength(2);

    const from = await eventCount(alice, id);
    const rejected = await respond(id, { accept: false, reason: 'Not on my machine' });
    expect(rejected.status).toBe(200);
    const after = await waitForRunEnd(alice, id, from, ['idle']);
    const rejections = after.events.filter((event) => event.kind === 'UserRejectObservation');
    expect(rejections).toHaveLength(2);
    expect(rejections.map((event) => [event.action_id, event.tool_call_id, event.tool_name])).toEqual(
      actions.map((event) => [event.id, event.tool_call_id, event.tool_name]),
    );
    for (const rejection of rejections) {
      expect(rejection).toMatchObject({ rejection_source: 'user', rejection_reason: 'Not on my machine' });
    }
    expect(existsSync(join(dir, 'a.txt'))).toBe(false);
    expect(existsSync(join(dir, 'b.txt'))).toBe(false);
    await sleep(300);
    expect(llm.requests).toHaveLength(1);
    expect((await alice.get(`/api/conversations/${id}`)).body.execution_status).toBe('idle');
    // Nothing waits any more.
    expect((await respond(id, { accept: true })).status).toBe(409);

    llm.enqueue({ text: 'Understood, I will not.' });
    const next = await runTurn(alice, id, 'Do something else');
    expect(next.record.execution_status).toBe('finished');
    expect(toolMessage(llm.requests[1].body, actions[0].tool_call_id)?.content).toContain('Not on my machine');
    expectAllValid(next.events);
  });

  it('respond_to_confirmation when nothing waits is 409 and changes nothing', async () => {
    const { id } = await createAgentConversation(alice, llm);
    const idle = await respond(id, { accept: true });
    expect(idle.status).toBe(409);
    expect(idle.body).toEqual({ detail: expect.any(String) });
    llm.enqueue({ text: 'hi' });
    await runTurn(alice, id, 'hello');
    const before = await eventCount(alice, id);
    const finished = await respond(id, { accept: false, reason: 'whatever' });
    expect(finished.status).toBe(409);
    expect(await eventCount(alice, id)).toBe(before);
    expect((await alice.get(`/api/conversations/${id}`)).body.execution_status).toBe('finished');
    // A malformed response is a validation error, not a conflict.
    expect((await respond(id, { accept: 'yes' })).status).toBe(422);
  });

  it('AlwaysConfirm never asks for a batch of think and finish', async () => {
    const { id } = await createAgentConversation(alice, llm, { confirmation_policy: { kind: 'AlwaysConfirm' } });
    llm.enqueue(
      { toolCalls: [{ name: 'think', arguments: { thought: 'nothing risky' } }] },
      { toolCalls: [{ name: 'think', arguments: { thought: 'still nothing' } }, { name: 'finish', arguments: { message: 'Done thinking.' } }] },
    );
    const { record, events } = await runTurn(alice, id, 'Just think');
    expect(record.execution_status).toBe('finished');
    expect(statusChanges(events)).not.toContain('waiting_for_confirmation');
    expect(events.filter((event) => event.kind === 'ObservationEvent')).toHaveLength(3);
  });

  it('ConfirmRisky: a LOW risk action runs without asking, a HIGH risk one asks', async () => {
    const { id, dir } = await createAgentConversation(alice, llm, { confirmation_policy: { kind: 'ConfirmRisky' } });
    expect((await alice.get(`/api/conversations/${id}`)).body.confirmation_policy).toEqual({
      kind: 'ConfirmRisky',
      threshold: 'HIGH',
      confirm_unknown: true,
    });
    llm.enqueue(
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo low > low.txt', security_risk: 'LOW' } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo high > high.txt', security_risk: 'HIGH' } }] },
    );
    const { record, events } = await runTurn(alice, id, 'Do a safe thing, then a risky one');
    expect(record.execution_status).toBe('waiting_for_confirmation');
    const actions = events.filter((event) => event.kind === 'ActionEvent');
    expect(actions.map((event) => event.security_risk)).toEqual(['LOW', 'HIGH']);
    expect(existsSync(join(dir, 'low.txt'))).toBe(true);
    expect(existsSync(join(dir, 'high.txt'))).toBe(false);
    expect(events.filter((event) => event.kind === 'ObservationEvent').map((event) => event.action_id)).toEqual([actions[0].id]);
    expectAllValid(events);
  });

  it('ConfirmRisky asks for an action whose risk the LLM did not say (confirm_unknown)', async () => {
    const { id, dir } = await createAgentConversation(alice, llm, { confirmation_policy: { kind: 'ConfirmRisky' } });
    llm.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'echo unknown > unknown.txt' } }] });
    const { record, events } = await runTurn(alice, id, 'Do something unrated');
    expect(record.execution_status).toBe('waiting_for_confirmation');
    expect(events.find((event) => event.kind === 'ActionEvent')).toMatchObject({ security_risk: 'UNKNOWN' });
    expect(existsSync(join(dir, 'unknown.txt'))).toBe(false);
  });

  it('pause while actions wait, then run: the actions are reported not run (not "interrupted by a restart") and the LLM goes on', async () => {
    const { id, dir } = await createAgentConversation(alice, llm, { confirmation_policy: { kind: 'AlwaysConfirm' } });
    llm.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'echo never > never.txt' }, id: 'call_never' }] }, { text: 'Fine, I will not.' });
    expect((await runTurn(alice, id, 'Write never.txt')).record.execution_status).toBe('waiting_for_confirmation');
    expect((await alice.post(`/api/conversations/${id}/pause`)).status).toBe(200);
    expect((await alice.get(`/api/conversations/${id}`)).body.execution_status).toBe('paused');
    const from = await eventCount(alice, id);
    expect((await alice.post(`/api/conversations/${id}/run`)).status).toBe(200);
    const { record, events } = await waitForRunEnd(alice, id, from, ['finished', 'error', 'stuck']);
    expect(record.execution_status).toBe('finished');
    const error = events.find((event) => event.kind === 'AgentErrorEvent' && event.tool_call_id === 'call_never')!;
    expect(error.error).toMatch(/not run/);
    expect(error.error).not.toMatch(/restart/);
    expect(existsSync(join(dir, 'never.txt'))).toBe(false);
    expect(toolMessage(llm.requests[1].body, 'call_never')?.content).toMatch(/not run/);
    expectAllValid(events);
  });

  it('a client that accepts the moment it sees waiting_for_confirmation is not refused', async () => {
    const { id } = await createAgentConversation(alice, llm, { confirmation_policy: { kind: 'AlwaysConfirm' } });
    const answers: string[] = [];
    for (let round = 0; round < 5; round++) {
      llm.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: `echo round-${round}` } }] }, { text: `done ${round}` });
      const from = await eventCount(alice, id);
      await sendMessage(alice, id, `Round ${round}`);
      // An eager client (or one told by the live stream) answers as soon as the status allows: until then it
      // gets "nothing waits"; the first other answer must be the acceptance, never "already running".
      const deadline = Date.now() + 15_000;
      let accepted: HttpResult | null = null;
      while (Date.now() < deadline) {
        accepted = await respond(id, { accept: true });
        if (accepted.status !== 409 || !/Nothing waits/.test(accepted.body.detail)) break;
      }
      answers.push(`${accepted?.status} ${accepted?.body?.detail ?? ''}`.trim());
      if (accepted?.status !== 200) break;
      await waitForRunEnd(alice, id, from, ['finished', 'error']);
    }
    expect(answers).toEqual(Array(5).fill('200'));
  });

  it('an answer while the lease is still held (its loop ending) waits for it instead of failing', async () => {
    const { id, dir } = await createAgentConversation(alice, llm, { confirmation_policy: { kind: 'AlwaysConfirm' } });
    llm.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'echo late > late.txt' } }] }, { text: 'ok' });
    const { record } = await runTurn(alice, id, 'Write late.txt');
    expect(record.execution_status).toBe('waiting_for_confirmation');
    // As if the loop that asked had not released its lease yet: held for another 700 ms.
    await queryDatabase(
      database.url,
      `UPDATE conversations SET run_holder = 'an-instance-finishing-up', run_expires_at = now() + interval '700 milliseconds' WHERE id = $1`,
      [id],
    );
    const from = await eventCount(alice, id);
    const accepted = await respond(id, { accept: true });
    expect(accepted.status).toBe(200);
    const after = await waitForRunEnd(alice, id, from, ['finished', 'error']);
    expect(after.record.execution_status).toBe('finished');
    expect(existsSync(join(dir, 'late.txt'))).toBe(true);
  });

  it('pause during an LLM step: PauseEvent, status paused, no further LLM call; a message with run: true continues', async () => {
    const { id } = await createAgentConversation(alice, llm);
    llm.enqueue(
      { toolCalls: [{ name: 'think', arguments: { thought: 'slow thought' } }], delayMs: 1500 },
      { text: 'Continued after the pause.' },
    );
    const from = await eventCount(alice, id);
    await sendMessage(alice, id, 'Think slowly');
    await llm.waitForRequests(1);
    const paused = await alice.post(`/api/conversations/${id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body).toEqual({ success: true });
    expect((await alice.get(`/api/conversations/${id}`)).body.execution_status).toBe('paused');
    // The step in flight completes; then the loop stops before calling the LLM again.
    await sleep(2500);
    expect(llm.requests).toHaveLength(1);
    const record = (await alice.get(`/api/conversations/${id}`)).body;
    expect(record.execution_status).toBe('paused');
    const events = await allEvents(alice, id);
    const pauseEvents = events.filter((event) => event.kind === 'PauseEvent');
    expect(pauseEvents).toHaveLength(1);
    expect(pauseEvents[0].source).toBe('user');
    expect(statusChanges(events.slice(from))).toEqual(['running', 'paused']);
    expectAllValid(events);

    const resumed = await runTurn(alice, id, 'Go on');
    expect(resumed.record.execution_status).toBe('finished');
    expect(llm.requests).toHaveLength(2);
    expect(JSON.stringify(llm.requests[1].body.messages)).toContain('slow thought');
    expect(resumed.events.filter((event: Ev) => event.kind === 'MessageEvent' && event.source === 'agent').pop()?.llm_message.content[0].text).toBe(
      'Continued after the pause.',
    );
  });

  it('pause during the step that ends the run: the pause stays, the run does not overwrite it with finished', async () => {
    const { id } = await createAgentConversation(alice, llm);
    llm.enqueue({ text: 'Final answer, slowly.', delayMs: 1500 });
    const from = await eventCount(alice, id);
    const requestsBefore = llm.requests.length;
    await sendMessage(alice, id, 'Answer slowly');
    await llm.waitForRequests(requestsBefore + 1);
    expect((await alice.post(`/api/conversations/${id}/pause`)).status).toBe(200);
    await sleep(2500);
    const events = await allEvents(alice, id);
    // The answer of the step in flight is kept, but the status the user set stays.
    expect(events.some((event) => event.kind === 'MessageEvent' && event.source === 'agent')).toBe(true);
    expect((await alice.get(`/api/conversations/${id}`)).body.execution_status).toBe('paused');
    expect(statusChanges(events.slice(from))).toEqual(['running', 'paused']);
  });

  it('run right after pause, while the paused step is still in flight, is accepted and continues after that step', async () => {
    const { id } = await createAgentConversation(alice, llm);
    llm.enqueue({ toolCalls: [{ name: 'think', arguments: { thought: 'first' } }], delayMs: 1000 }, { text: 'second' });
    const from = await eventCount(alice, id);
    await sendMessage(alice, id, 'Two steps');
    await llm.waitForRequests(1);
    expect((await alice.post(`/api/conversations/${id}/pause`)).status).toBe(200);
    const run = await alice.post(`/api/conversations/${id}/run`);
    expect(run.status).toBe(200);
    const { record, events } = await waitForRunEnd(alice, id, from, ['finished', 'error', 'stuck']);
    expect(record.execution_status).toBe('finished');
    expect(llm.requests).toHaveLength(2);
    expect(statusChanges(events.slice(from))).toEqual(['running', 'paused', 'running', 'finished']);
  });

  it('a message with run: true sent before a pause does not restart the loop after it', async () => {
    const { id } = await createAgentConversation(alice, llm);
    llm.enqueue({ toolCalls: [{ name: 'think', arguments: { thought: 'busy' } }], delayMs: 1000 }, { text: 'should not be asked' });
    await sendMessage(alice, id, 'Work');
    await llm.waitForRequests(1);
    await sendMessage(alice, id, 'One more thing'); // read at the next step
    expect((await alice.post(`/api/conversations/${id}/pause`)).status).toBe(200);
    await sleep(2000);
    expect(llm.requests).toHaveLength(1);
    expect((await alice.get(`/api/conversations/${id}`)).body.execution_status).toBe('paused');
  });
});
