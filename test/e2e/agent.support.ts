// Helpers shared by the agent e2e suites (test/e2e/agent-*.e2e-spec.ts).
import { validateEvent } from '../../src/events/dto/event-registry.js';
import { allEvents, llmAgent } from '../support/agent-helpers.js';
import type { FakeLlm } from '../support/fake-llm-server.js';
import type { HttpClient } from '../support/http-client.js';

export type Ev = Record<string, any>;

/** Statuses a run ends in (or stops to ask in). */
export const RUN_END_STATUSES = ['finished', 'error', 'stuck', 'paused', 'waiting_for_confirmation', 'idle'];

export const LLM_KEY = 'sk-test-llm-secret-0000';

/** Creates a conversation whose agent talks to the fake LLM; `extra` adds create-request fields. */
export async function createAgentConversation(
  http: HttpClient,
  llm: FakeLlm,
  extra: Record<string, unknown> = {},
  model?: string,
): Promise<{ id: string; dir: string; record: Ev }> {
  const created = await http.post('/api/conversations', { body: { agent: llmAgent(llm.url, LLM_KEY, model), ...extra } });
  if (created.status !== 201) throw new Error(`create failed: ${created.status} ${created.text}`);
  return { id: created.body.id, dir: created.body.workspace.working_dir, record: created.body };
}

/** The conversation's event count (the next event's position). */
export async function eventCount(http: HttpClient, id: string): Promise<number> {
  return (await http.get(`/api/conversations/${id}`)).body.event_count;
}

export async function sendMessage(http: HttpClient, id: string, text: string, run = true): Promise<void> {
  const sent = await http.post(`/api/conversations/${id}/events`, { body: { content: [{ type: 'text', text }], run } });
  if (sent.status !== 200) throw new Error(`send failed: ${sent.status} ${sent.text}`);
}

/**
 * Waits until a status change stored at or after position `fromSeq` put the conversation in one of
 * `statuses`, and the record says so too: the end of the run started after `fromSeq`, never an older one.
 */
export async function waitForRunEnd(
  http: HttpClient,
  id: string,
  fromSeq: number,
  statuses: string[] = RUN_END_STATUSES,
  timeoutMs = 20_000,
): Promise<{ record: Ev; events: Ev[] }> {
  const deadline = Date.now() + timeoutMs;
  let lastStatus = '?';
  while (Date.now() < deadline) {
    const events = await allEvents(http, id);
    const changes = events
      .slice(fromSeq)
      .filter((event) => event.kind === 'ConversationStateUpdateEvent' && event.key === 'execution_status');
    const last = changes[changes.length - 1];
    const record = (await http.get(`/api/conversations/${id}`)).body;
    lastStatus = record.execution_status;
    if (last && statuses.includes(last.value) && record.execution_status === last.value) return { record, events };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`conversation ${id} did not reach ${statuses.join('|')} after position ${fromSeq}; status ${lastStatus}`);
}

/** Sends a message with run: true and waits for the run it starts to end. */
export async function runTurn(http: HttpClient, id: string, text: string, statuses?: string[]): Promise<{ record: Ev; events: Ev[] }> {
  const from = await eventCount(http, id);
  await sendMessage(http, id, text);
  return waitForRunEnd(http, id, from, statuses);
}

export function kinds(events: Ev[], hideState = true): string[] {
  return events.filter((event) => !hideState || event.kind !== 'ConversationStateUpdateEvent').map((event) => event.kind);
}

export function statusChanges(events: Ev[]): string[] {
  return events
    .filter((event) => event.kind === 'ConversationStateUpdateEvent' && event.key === 'execution_status')
    .map((event) => event.value as string);
}

/** Every event validates against its DTO; failures name the event. */
export function expectAllValid(events: Ev[]): void {
  const invalid = events
    .map((event) => ({ kind: event.kind, id: event.id, errors: validateEvent(event).map((error) => error.toString()) }))
    .filter((result) => result.errors.length > 0);
  expect(invalid).toEqual([]);
}

/** The text of every message the service sent in one LLM request, tool results included. */
export function requestText(body: Ev): string {
  return JSON.stringify(body.messages ?? []) + JSON.stringify(body.system ?? '');
}

/** The OpenAI-format tool message for a call id in a request body. */
export function toolMessage(body: Ev, toolCallId: string): Ev | undefined {
  return (body.messages as Ev[]).find((message) => message.role === 'tool' && message.tool_call_id === toolCallId);
}

/**
 * What OpenAI's chat completions API demands of a request's messages, and the fake LLM does not check:
 * the system prompt first; every assistant message with tool_calls followed at once by one tool message
 * per call (any order), and no tool message anywhere else.
 */
export function openAiProtocolViolations(body: Ev): string[] {
  const messages = (body.messages ?? []) as Ev[];
  const problems: string[] = [];
  const systemAt = messages.findIndex((message) => message.role === 'system');
  if (systemAt > 0) problems.push(`system message at ${systemAt}, not first`);
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index];
    if (message.role === 'tool') {
      problems.push(`tool message at ${index} (${message.tool_call_id}) does not answer the assistant message before it`);
      continue;
    }
    if (message.role !== 'assistant' || !message.tool_calls?.length) continue;
    const open = new Set<string>(message.tool_calls.map((call: Ev) => call.id));
    let next = index + 1;
    while (next < messages.length && messages[next].role === 'tool' && open.delete(messages[next].tool_call_id)) next++;
    if (open.size) problems.push(`assistant message at ${index}: no result right after it for ${[...open].join(', ')}`);
    index = next - 1;
  }
  return problems;
}

/** Fails when any OpenAI-format request the fake LLM got breaks the chat protocol. */
export function expectWellFormedRequests(llm: FakeLlm): void {
  const violations = llm.requests
    .filter((request) => request.api === 'openai')
    .flatMap((request, index) => openAiProtocolViolations(request.body).map((problem) => `request ${index}: ${problem}`));
  expect(violations).toEqual([]);
}
