// The reference implementation's official TypeScript client (@openhands/typescript-client) driving this
// service unchanged, as its README shows: a real service process, a real database, the fake LLM as the model.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as OpenHandsClient from '@openhands/typescript-client';
import { validateEvent } from '../../src/events/dto/event-registry.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm-server.js';
import { ALICE_KEY, BOB_KEY, startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase } from '../support/test-database.js';

type Ev = Record<string, any>;

const LLM_KEY = 'sk-client-llm-secret-4242';
const UNKNOWN_UUID = '0b7c56c1-3f4e-4a49-9a36-6b1e2f6f9d11';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A callback for the client that records what the WebSocket delivers. */
function recorder() {
  const events: Ev[] = [];
  const errors: Error[] = [];
  return {
    events,
    errors,
    callback: (event: unknown) => events.push(event as Ev),
    onError: (error: Error) => errors.push(error),
    /** The stored events delivered live (the full_state frame is a snapshot, not stored). */
    stored: () => events.filter((event) => !(event.kind === 'ConversationStateUpdateEvent' && event.key === 'full_state')),
    hasFullState: () => events.some((event) => event.kind === 'ConversationStateUpdateEvent' && event.key === 'full_state'),
    /** Whether an execution_status update to `status` arrived, among the frames from index `from` on. */
    statusReached: (status: string, from = 0) =>
      events
        .slice(from)
        .some((event) => event.kind === 'ConversationStateUpdateEvent' && event.key === 'execution_status' && event.value === status),
  };
}

describe('the reference TypeScript client (@openhands/typescript-client) against this service', () => {
  let client: typeof OpenHandsClient;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ServiceProcess;
  let llm: FakeLlm;
  const open: Array<{ close(): Promise<void> }> = [];

  const agentFor = (url: string) =>
    new client.Agent({ llm: { model: 'openai/test-model', base_url: url, api_key: LLM_KEY, usage_id: 'agent' } as any });
  // `null` means no key at all.
  const workspaceFor = (workingDir: string, apiKey: string | null = ALICE_KEY) =>
    new client.Workspace({ host: service.url, workingDir, apiKey: apiKey ?? undefined });
  const managerFor = (apiKey: string | null = ALICE_KEY) => new client.ConversationManager({ host: service.url, apiKey: apiKey ?? undefined });

  /** Every stored event, read through the client's own paging (`/events/search` with page_id). */
  async function serverEvents(conversationId: string, apiKey = ALICE_KEY): Promise<Ev[]> {
    const list = new client.RemoteEventsList({ baseUrl: service.url, apiKey }, conversationId);
    return (await list.getEvents()) as Ev[];
  }

  async function expectHttpError(promise: Promise<unknown>, status: number): Promise<InstanceType<typeof OpenHandsClient.HttpError>> {
    const error = await promise.then(
      () => {
        throw new Error(`expected HTTP ${status}, the call succeeded`);
      },
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(client.HttpError);
    expect((error as InstanceType<typeof OpenHandsClient.HttpError>).status).toBe(status);
    return error as InstanceType<typeof OpenHandsClient.HttpError>;
  }

  beforeAll(async () => {
    // The client picks its WebSocket implementation once, when first loaded: `window.WebSocket` in a browser,
    // else `require('ws')`, which exists only when it is bundled as CommonJS. Node's ES modules (and jest's)
    // have no `require`, so give it the CommonJS `require` it expects (a client defect, not a service one).
    (globalThis as Record<string, unknown>).require ??= createRequire(import.meta.url);
    client = await import('@openhands/typescript-client');
    database = await createTestDatabase();
    llm = await startFakeLlm();
    service = await startServiceProcess({ databaseUrl: database.url, env: { LLM_MAX_RETRIES: '0', LLM_TIMEOUT_MS: '10000' } });
  });
  beforeEach(() => llm.reset());
  afterEach(async () => {
    for (const item of open.splice(0)) await item.close().catch(() => undefined);
  });
  afterAll(async () => {
    await service?.stop();
    await llm?.close();
    await database?.drop();
  });

  function track<T extends { close(): Promise<void> }>(item: T): T {
    open.push(item);
    return item;
  }

  describe('the README flow: start, WebSocket, sendMessage, run', () => {
    let conversationId: string;
    let live: ReturnType<typeof recorder>;
    let conversation: InstanceType<typeof OpenHandsClient.Conversation>;
    afterAll(async () => {
      await conversation?.close();
    });

    it('runs a tool call and finishes; the callback gets every stored event live, in order, once', async () => {
      live = recorder();
      conversation = new client.Conversation(agentFor(llm.url), workspaceFor('readme-project'), { callback: live.callback, onError: live.onError });
      await conversation.start();
      conversationId = conversation.id;
      expect(conversationId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      await conversation.startWebSocketClient();
      await waitUntil(live.hasFullState, 'the full_state frame');
      expect(live.events[0]).toMatchObject({ kind: 'ConversationStateUpdateEvent', key: 'full_state', value: { id: conversationId, execution_status: 'idle' } });

      llm.enqueue(
        { toolCalls: [{ name: 'terminal', arguments: { command: 'echo hi', summary: 'say hi', security_risk: 'LOW' } }] },
        { toolCalls: [{ name: 'finish', arguments: { message: 'Said hi.' } }] },
      );
      await conversation.sendMessage('Say hi in the terminal');
      await conversation.run();
      await waitUntil(() => live.statusReached('finished'), 'execution_status finished over the WebSocket');

      const stored = await serverEvents(conversationId);
      await waitUntil(() => live.stored().length >= stored.length, 'every stored event over the WebSocket');
      expect(live.stored().map((event) => event.id)).toEqual(stored.map((event) => event.id));
      expect(live.stored()).toEqual(stored);
      expect(live.errors).toEqual([]);
      // fetch builds its objects in Node's own realm, not jest's: re-parse them here before validating.
      for (const event of stored) expect(validateEvent(JSON.parse(JSON.stringify(event)))).toEqual([]);

      const dialogue = stored.filter((event) => event.kind !== 'ConversationStateUpdateEvent');
      expect(dialogue.map((event) => event.kind)).toEqual([
        'MessageEvent', 'SystemPromptEvent', 'ActionEvent', 'ObservationEvent', 'ActionEvent', 'ObservationEvent',
      ]);
      expect(dialogue[0]).toMatchObject({ source: 'user', llm_message: { role: 'user', content: [{ type: 'text', text: 'Say hi in the terminal' }] } });
      expect(dialogue[2]).toMatchObject({ tool_name: 'terminal', summary: 'say hi', action: { kind: 'TerminalAction', command: 'echo hi' } });
      expect(dialogue[3]).toMatchObject({ tool_name: 'terminal', action_id: dialogue[2].id, observation: { kind: 'TerminalObservation', exit_code: 0 } });
      expect(dialogue[3].observation.content[0].text).toContain('hi');
      expect(dialogue[4]).toMatchObject({ tool_name: 'finish', action: { kind: 'FinishAction', message: 'Said hi.' } });

      // The agent's llm from the client reached the model; its key stays a secret.
      expect(llm.requests).toHaveLength(2);
      expect(llm.requests[0].body.model).toBe('test-model');
      expect(llm.requests[0].headers.authorization).toBe(`Bearer ${LLM_KEY}`);
      expect(JSON.stringify(stored)).not.toContain(LLM_KEY);
      expect(JSON.stringify(live.events)).not.toContain(LLM_KEY);
    });

    it('reads the state: status, agent (key masked), workspace, policy, stats, final response', async () => {
      const state = conversation.state;
      await state.refresh();
      expect(await state.getAgentStatus()).toBe('finished');
      expect(await state.getExecutionStatus()).toBe('finished');
      expect(await state.getConfirmationPolicy()).toEqual({ kind: 'NeverConfirm' });
      expect(await state.getActivatedKnowledgeSkills()).toEqual([]);
      expect(await state.getPersistenceDir()).toBe(`workspace/conversations/${conversationId.replace(/-/g, '')}`);
      const agent = (await state.getAgent()) as Ev;
      expect(agent).toMatchObject({ kind: 'Agent', llm: { model: 'openai/test-model', base_url: llm.url, api_key: '**********' } });
      const workspace = (await state.getWorkspace()) as Ev;
      expect(workspace.working_dir).toMatch(/\/alice\/readme-project$/);
      const info = await state.modelDump();
      expect(info).toMatchObject({ id: conversationId, execution_status: 'finished', max_iterations: 500, stuck_detection: true });
      expect(JSON.parse(await state.modelDumpJson())).toEqual(info);
      expect(await conversation.conversationStats()).toEqual(expect.any(Object));
      expect(await conversation.getAgentFinalResponse()).toBe('Said hi.');
    });

    it('searches, counts, pages and gets events through RemoteEventsList', async () => {
      const events = conversation.state.events;
      const all = await serverEvents(conversationId);
      const actions = all.filter((event) => event.kind === 'ActionEvent');

      const page = await events.search({ kind: 'ActionEvent' });
      expect(page.items.map((event) => event.id)).toEqual(actions.map((event) => event.id));
      expect(page.next_page_id ?? null).toBeNull();

      const first = await events.search({ kind: 'ActionEvent', limit: 1 });
      expect(first.items.map((event) => event.id)).toEqual([actions[0].id]);
      expect(first.next_page_id).toBe(actions[1].id);
      const second = await events.search({ kind: 'ActionEvent', limit: 1, page_id: first.next_page_id });
      expect(second.items.map((event) => event.id)).toEqual([actions[1].id]);

      const newest = await events.search({ sort_order: 'TIMESTAMP_DESC', limit: 3 });
      expect(newest.items.map((event) => event.id)).toEqual(all.slice(-3).reverse().map((event) => event.id));
      expect((await events.search({ source: 'user' })).items.map((event) => event.kind)).toEqual(['MessageEvent']);
      expect((await events.search({ body: 'SAY HI' })).items.map((event) => event.id)).toEqual([all[0].id]);
      const fromAction = await events.search({ timestamp__gte: actions[1].timestamp });
      expect(fromAction.items.every((event) => event.timestamp >= actions[1].timestamp)).toBe(true);
      expect(fromAction.items.map((event) => event.id)).toContain(actions[1].id);
      expect((await events.search({ timestamp__lt: all[0].timestamp })).items).toEqual([]);

      expect(await events.count()).toBe(all.length);
      expect(await events.count({ kind: 'ObservationEvent' })).toBe(2);
      expect(await events.count({ kind: 'openhands.sdk.event.llm_convertible.observation.ObservationEvent' })).toBe(2);
      expect(await events.count({ source: 'user' })).toBe(1);

      expect(await events.getEventById(actions[0].id)).toEqual(actions[0]);
      expect(await events.getEventsById([actions[1].id, '01ARZ3NDEKTSV4RRFFQ69G5FAV'])).toEqual([actions[1], null]);

      const iterated: Ev[] = [];
      for await (const event of events) iterated.push(event as Ev);
      // The client merges the server's pages with what its WebSocket cached, without duplicates; the only
      // frame the server does not store, the full_state snapshot, comes last.
      expect(iterated.map((event) => event.id)).toEqual([...all.map((event) => event.id), live.events[0].id]);
      expect(await events.length()).toBe(live.stored().length + 1);
      expect(await events.getEvent(0)).toEqual(live.events[0]);
    });

    it('the lower-level ConversationClient speaks the same routes', async () => {
      const { ConversationClient } = await import('@openhands/typescript-client/clients');
      const conversations = new ConversationClient({ host: service.url, apiKey: ALICE_KEY });
      const info = await conversations.getConversation(conversationId);
      expect(info).toMatchObject({ id: conversationId, execution_status: 'finished' });
      const page = await conversations.searchEvents(conversationId, { kind: 'ObservationEvent', limit: 5 });
      expect(page.items).toHaveLength(2);
      expect(await conversations.getEventCount(conversationId, { kind: 'MessageEvent' })).toBe(1);
      expect(await conversations.getAgentFinalResponse(conversationId)).toEqual({ response: 'Said hi.' });
      conversations.close();
    });

    it('renames it; the title reaches the record and the WebSocket', async () => {
      await conversation.setTitle('  Greetings  ');
      await waitUntil(() => live.events.some((event) => event.key === 'title'), 'the title update over the WebSocket');
      expect(live.events.find((event) => event.key === 'title')).toMatchObject({ kind: 'ConversationStateUpdateEvent', value: 'Greetings' });
      expect((await conversation.state.refresh()).title).toBe('Greetings');
    });
  });

  it('start({initialMessage}) runs the agent, as the reference does; a new message runs it again', async () => {
    const live = recorder();
    llm.enqueue({ text: 'Hello! How can I help?' });
    const conversation = track(
      new client.Conversation(agentFor(llm.url), workspaceFor('/tmp'), { callback: live.callback, onError: live.onError }),
    );
    await conversation.start({ initialMessage: 'Hello there' });
    await conversation.startWebSocketClient();
    await waitUntil(async () => (await conversation.state.refresh()).execution_status === 'finished', 'the first run');
    let stored = await serverEvents(conversation.id);
    const answer = stored.find((event) => event.kind === 'MessageEvent' && event.source === 'agent');
    expect(answer?.llm_message.content[0].text).toBe('Hello! How can I help?');
    expect(await conversation.getAgentFinalResponse()).toBe('Hello! How can I help?');
    // '/tmp' names a directory inside the caller's own workspace root, never the host's /tmp.
    expect(((await conversation.state.getWorkspace()) as Ev).working_dir).toMatch(/\/alice\/tmp$/);

    llm.enqueue({ text: 'Second answer.' });
    const mark = live.events.length;
    await conversation.sendMessage({ content: [{ type: 'text', text: 'And again' }] } as any);
    await conversation.run();
    await waitUntil(() => live.statusReached('finished', mark), 'the second run over the WebSocket');
    stored = await serverEvents(conversation.id);
    await waitUntil(() => live.stored().length > 0 && live.stored().at(-1)!.id === stored.at(-1)!.id, 'the last event over the WebSocket');
    const delivered = live.stored().map((event) => event.id);
    expect(delivered).toEqual(stored.slice(stored.length - delivered.length).map((event) => event.id));
    expect(stored.filter((event) => event.kind === 'MessageEvent').map((event) => event.llm_message.content[0].text)).toEqual([
      'Hello there', 'Hello! How can I help?', 'And again', 'Second answer.',
    ]);
    expect(live.errors).toEqual([]);
  });

  it('an agent with the reference tool names and an image message; getAgentStatus polled as the README does', async () => {
    const agent = new client.Agent({
      llm: { model: 'openai/test-model', base_url: llm.url, api_key: LLM_KEY },
      tools: [{ name: 'TerminalTool' }, { name: 'FileEditorTool' }],
    } as any);
    const conversation = track(new client.Conversation(agent, workspaceFor('/workspace/tools')));
    await conversation.start();
    const dir = ((await conversation.state.getWorkspace()) as Ev).working_dir as string;
    expect(dir).toMatch(/\/alice\/workspace\/tools$/);
    llm.enqueue(
      { toolCalls: [{ name: 'file_editor', arguments: { command: 'create', path: `${dir}/notes.md`, file_text: '# Notes\n' } }] },
      { text: 'Saved notes.md.' },
    );
    const image = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    await conversation.sendMessage({ content: [{ type: 'text', text: 'Save what you see' }, { type: 'image', image_urls: [image] }] } as any);
    await conversation.run();
    await waitUntil(async () => (await conversation.state.getAgentStatus()) === 'finished', 'getAgentStatus() finished');
    expect(readFileSync(join(dir, 'notes.md'), 'utf8')).toBe('# Notes\n');

    const offered = (llm.requests[0].body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name).sort();
    expect(offered).toEqual(['file_editor', 'finish', 'terminal']);
    const userMessage = llm.requests[0].body.messages.find((message: Ev) => message.role === 'user');
    expect(JSON.stringify(userMessage.content)).toContain(image);
    const [message] = (await conversation.state.events.search({ kind: 'MessageEvent', source: 'user' })).items as Ev[];
    expect(message.llm_message.content).toEqual([
      { type: 'text', text: 'Save what you see', cache_prompt: false },
      { type: 'image', image_urls: [image], cache_prompt: false },
    ]);
    const [systemPrompt] = (await conversation.state.events.search({ kind: 'SystemPromptEvent' })).items as Ev[];
    expect(systemPrompt.tools.map((tool: Ev) => tool.kind).sort()).toEqual(['FileEditorTool', 'FinishTool', 'TerminalTool']);
  });

  it('confirmation: setConfirmationPolicy, waiting_for_confirmation, sendConfirmationResponse accept and reject', async () => {
    const conversation = track(new client.Conversation(agentFor(llm.url), workspaceFor('confirm-project')));
    await conversation.start();
    // The README's `{type: 'always'}` is not a policy of the server's (nor of the reference's): its discriminator is `kind`.
    const invalid = await expectHttpError(conversation.setConfirmationPolicy({ type: 'always' }), 422);
    expect((invalid.response as Ev).detail[0].loc.slice(0, 2)).toEqual(['body', 'policy']);
    await conversation.setConfirmationPolicy({ kind: 'AlwaysConfirm' });
    expect(await conversation.state.getConfirmationPolicy()).toEqual({ kind: 'AlwaysConfirm' });
    const dir = ((await conversation.state.getWorkspace()) as Ev).working_dir as string;

    llm.enqueue(
      { toolCalls: [{ name: 'file_editor', arguments: { command: 'create', path: `${dir}/ok.txt`, file_text: 'accepted\n' } }] },
      { toolCalls: [{ name: 'terminal', arguments: { command: 'touch rejected.txt' } }] },
      { text: 'Understood, I will not.' },
    );
    await conversation.sendMessage('Create ok.txt');
    await conversation.run();
    await waitUntil(async () => (await conversation.state.refresh()).execution_status === 'waiting_for_confirmation', 'a confirmation request');
    expect(existsSync(join(dir, 'ok.txt'))).toBe(false);
    await conversation.sendConfirmationResponse(true);
    await waitUntil(
      async () =>
        (await conversation.state.events.count({ kind: 'ActionEvent' })) === 2 &&
        (await conversation.state.refresh()).execution_status === 'waiting_for_confirmation',
      'the second request',
    );
    expect(readFileSync(join(dir, 'ok.txt'), 'utf8')).toBe('accepted\n');
    await conversation.sendConfirmationResponse(false, 'Not that one');
    await waitUntil(async () => (await conversation.state.refresh()).execution_status === 'idle', 'idle after the rejection');
    const rejected = await conversation.state.events.search({ kind: 'UserRejectObservation' });
    expect(rejected.items).toEqual([expect.objectContaining({ tool_name: 'terminal', rejection_reason: 'Not that one', rejection_source: 'user' })]);
    expect(existsSync(join(dir, 'rejected.txt'))).toBe(false);
    // Nothing waits any more: the server says 409 and the client surfaces it.
    await expectHttpError(conversation.sendConfirmationResponse(true), 409);
  });

  it('pause stops the run after its step with a PauseEvent; run continues it; condense is accepted', async () => {
    const conversation = track(new client.Conversation(agentFor(llm.url), workspaceFor('pause-project')));
    await conversation.start();
    llm.enqueue(
      { toolCalls: [{ name: 'think', arguments: { thought: 'thinking slowly' } }], delayMs: 800 },
      { toolCalls: [{ name: 'finish', arguments: { message: 'Done after the pause.' } }] },
    );
    await conversation.sendMessage('Think, then finish');
    await conversation.run();
    await llm.waitForRequests(1);
    await expectHttpError(conversation.run(), 409);
    await conversation.pause();
    await waitUntil(async () => (await conversation.state.refresh()).execution_status === 'paused', 'paused');
    expect(await conversation.state.events.count({ kind: 'PauseEvent' })).toBe(1);
    // The step in flight completes; the loop then stops before its next LLM call.
    await waitUntil(async () => (await conversation.state.events.count({ kind: 'ObservationEvent' })) === 1, 'the step to complete');
    await sleep(300);
    expect(llm.requests).toHaveLength(1);
    expect(await conversation.state.getAgentStatus()).toBe('paused');

    await conversation.run();
    await waitUntil(async () => (await conversation.state.refresh()).execution_status === 'finished', 'finished after the pause');
    expect(await conversation.getAgentFinalResponse()).toBe('Done after the pause.');
    await conversation.condense();
    expect(await conversation.state.events.count({ kind: 'CondensationRequest' })).toBe(1);
  });

  it('ConversationManager: create, load, search, count, batch get, update, delete; server health', async () => {
    const manager = managerFor();
    const before = await manager.countConversations();
    llm.enqueue({ text: 'Managed.' });
    const created = track(await manager.createConversation(agentFor(llm.url), { initialMessage: 'Hi from the manager', workingDir: 'managed' }));
    const id = created.id;
    await waitUntil(async () => (await manager.getConversation(id)).execution_status === 'finished', 'the managed conversation to finish');
    expect(await manager.countConversations()).toBe(before + 1);
    expect(await manager.countConversations({ status: 'finished' } as any)).toBeGreaterThanOrEqual(1);

    const page = await manager.searchConversations({ limit: 100 });
    expect(page.items[0].id).toBe(id);
    expect(page.items.every((item) => typeof item.execution_status === 'string')).toBe(true);
    const oldestFirst = await manager.searchConversations({ limit: 100, sort_order: client.ConversationSortOrder.CREATED_AT });
    expect(oldestFirst.items.at(-1)!.id).toBe(id);
    const all = await manager.getAllConversations();
    expect(all.map((item) => item.id)).toEqual(page.items.map((item) => item.id));
    const small = await manager.searchConversations({ limit: 1 });
    expect(small.items).toHaveLength(1);
    expect(small.next_page_id).toEqual(expect.any(String));
    const next = await manager.searchConversations({ limit: 1, page_id: small.next_page_id });
    expect(next.items[0].id).not.toBe(small.items[0].id);

    const batch = await manager.getConversations([id, UNKNOWN_UUID]);
    expect(batch).toHaveLength(2);
    expect(batch[0]).toMatchObject({ id });
    expect(batch[1]).toBeNull();

    expect(await manager.updateConversation(id, { title: 'Managed title' })).toEqual({ success: true });
    expect((await manager.getConversation(id)).title).toBe('Managed title');
    expect((await manager.searchConversations({ limit: 100, title__contains: 'managed TITLE' } as any)).items.map((item) => item.id)).toEqual([id]);

    const loaded = track(await manager.loadConversation(id, 'managed'));
    expect(loaded.id).toBe(id);
    expect(await loaded.getAgentFinalResponse()).toBe('Managed.');

    await manager.deleteConversation(id);
    await expectHttpError(manager.getConversation(id), 404);
    await expectHttpError(loaded.start(), 404);
    expect((await manager.getConversations([id]))[0]).toBeNull();

    expect(await manager.server.getAlive()).toEqual({ status: 'ok' });
    expect(await manager.server.getHealth()).toEqual({ status: 'ok' });
    expect(await manager.server.getReady()).toMatchObject({ status: 'ready' });
    manager.close();
  });

  it("another user's key is refused through the client (403), a wrong or missing key too (401)", async () => {
    const alice = track(new client.Conversation(agentFor(llm.url), workspaceFor('private')));
    await alice.start();
    const aliceId = alice.id;

    const asBob = track(new client.Conversation(agentFor(llm.url), workspaceFor('private', BOB_KEY), { conversationId: aliceId }));
    const forbidden = await expectHttpError(asBob.start(), 403);
    expect(forbidden.response).toEqual({ detail: 'Only the conversation owner may access it' });
    await expectHttpError(asBob.sendMessage('let me in'), 403);
    await expectHttpError(asBob.run(), 403);
    await expectHttpError(asBob.pause(), 403);
    await expectHttpError(asBob.setTitle('mine now'), 403);
    await expectHttpError(asBob.state.refresh(), 403);
    await expectHttpError(asBob.state.events.search(), 403);
    await expectHttpError(asBob.state.events.count(), 403);

    const bob = managerFor(BOB_KEY);
    await expectHttpError(bob.getConversation(aliceId), 403);
    await expectHttpError(bob.deleteConversation(aliceId), 403);
    await expectHttpError(bob.updateConversation(aliceId, { title: 'mine' }), 403);
    expect(await bob.getConversations([aliceId])).toEqual([null]);
    expect((await bob.searchConversations()).items.map((item) => item.id)).not.toContain(aliceId);
    bob.close();

    // Bob's WebSocket on Alice's conversation delivers nothing, not even the full_state snapshot.
    const bobLive = recorder();
    const socket = new client.WebSocketCallbackClient({ host: service.url, conversationId: aliceId, apiKey: BOB_KEY, callback: bobLive.callback, onError: bobLive.onError });
    socket.start();
    await alice.sendMessage('only for Alice');
    await sleep(500);
    socket.stop();
    expect(bobLive.events).toEqual([]);

    const wrong = managerFor('not-a-key');
    const unauthorized = await expectHttpError(wrong.searchConversations(), 401);
    expect(unauthorized.response).toEqual({ detail: 'Unauthorized' });
    await expectHttpError(wrong.getConversation(aliceId), 401);
    await expectHttpError(managerFor(null).countConversations(), 401);
    const anonymous = track(new client.Conversation(agentFor(llm.url), workspaceFor('anonymous', null)));
    await expectHttpError(anonymous.start(), 401);
    wrong.close();

    // Alice still has it, untouched.
    expect(await alice.state.refresh()).toMatchObject({ id: aliceId, title: null });
    expect(await alice.state.events.count({ kind: 'MessageEvent' })).toBe(1);
  });
});
