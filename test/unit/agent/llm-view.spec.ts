import { buildLlmView, toMessages } from '../../../src/agent/llm-view.js';

type Ev = Record<string, any>;

let counter = 0;
const id = () => `ev-${++counter}`;
const text = (value: string) => [{ type: 'text', text: value, cache_prompt: false }];

const systemPrompt = (): Ev => ({ kind: 'SystemPromptEvent', id: id(), source: 'agent', system_prompt: { type: 'text', text: 'SYSTEM' }, tools: [] });
const user = (value: string): Ev => ({ kind: 'MessageEvent', id: id(), source: 'user', llm_message: { role: 'user', content: text(value) } });
const action = (callId: string, responseId: string, thought = ''): Ev => ({
  kind: 'ActionEvent',
  id: id(),
  source: 'agent',
  thought: thought ? text(thought) : [],
  reasoning_content: null,
  thinking_blocks: [],
  action: { kind: 'ThinkAction', thought: 'x' },
  tool_name: 'think',
  tool_call_id: callId,
  tool_call: { id: callId, name: 'think', arguments: '{}', origin: 'completion' },
  llm_response_id: responseId,
});
const observation = (callId: string, output: string): Ev => ({
  kind: 'ObservationEvent',
  id: id(),
  source: 'environment',
  tool_name: 'think',
  tool_call_id: callId,
  observation: { kind: 'ThinkObservation', content: text(output), is_error: false },
});
const agentError = (callId: string, error: string): Ev => ({ kind: 'AgentErrorEvent', id: id(), source: 'agent', tool_name: 'x', tool_call_id: callId, error });

const shape = (messages: Ev[]) =>
  messages.map((message) => (message.role === 'tool' ? `tool:${message.tool_call_id}` : message.tool_calls ? `assistant:${message.tool_calls.map((call: Ev) => call.id).join('+')}` : message.role));

describe('llm view: messages for the LLM', () => {
  it('puts the system prompt first although it is stored after the first user message', () => {
    expect(shape(toMessages([user('hi'), systemPrompt()]))).toEqual(['system', 'user']);
  });

  it('keeps a user message sent while a tool ran after the result, not between the call and its result', () => {
    const view = [user('go'), systemPrompt(), action('c1', 'r1'), user('meanwhile'), observation('c1', 'done')];
    const messages = toMessages(view);
    expect(shape(messages)).toEqual(['system', 'user', 'assistant:c1', 'tool:c1', 'user']);
    expect((messages[4].content[0] as { text: string }).text).toBe('meanwhile');
  });

  it('keeps a batch together when an invalid call in the middle got its error before the other results', () => {
    const view = [
      user('go'),
      action('c1', 'r1', 'thinking out loud'),
      action('c2', 'r1'),
      agentError('c2', 'Tool not found'),
      action('c3', 'r1'),
      observation('c1', 'one'),
      observation('c3', 'three'),
    ];
    const messages = toMessages(view);
    expect(shape(messages)).toEqual(['user', 'assistant:c1+c2+c3', 'tool:c1', 'tool:c2', 'tool:c3']);
    expect(messages[1].content).toEqual(text('thinking out loud'));
    expect((messages[3].content[0] as { text: string }).text).toBe('Tool not found');
  });

  it('leaves out calls without a result (waiting for confirmation) and results whose call is gone', () => {
    expect(shape(toMessages([user('go'), action('c1', 'r1')]))).toEqual(['user']);
    expect(shape(toMessages([user('go'), observation('c9', 'orphan'), user('next')]))).toEqual(['user', 'user']);
  });

  it('applies a condensation: forgotten events dropped, the summary inserted at summary_offset', () => {
    const first = user('first');
    const prompt = systemPrompt();
    const old = [user('old one'), user('old two')];
    const kept = user('kept');
    const condensation = {
      kind: 'Condensation',
      id: id(),
      source: 'environment',
      forgotten_event_ids: old.map((event) => event.id),
      summary: 'SUMMARY',
      summary_offset: 2,
      llm_response_id: 'r-summary',
    };
    const { events, messages } = buildLlmView([first, prompt, ...old, kept, condensation]);
    expect(events.map((event) => event.kind)).toEqual(['MessageEvent', 'SystemPromptEvent', 'CondensationSummaryEvent', 'MessageEvent']);
    expect(shape(messages)).toEqual(['system', 'user', 'user', 'user']);
    expect(JSON.stringify(messages)).toContain('SUMMARY');
    expect(JSON.stringify(messages)).not.toContain('old one');
  });
});
