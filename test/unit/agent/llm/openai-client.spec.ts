import { inspect } from 'node:util';

import { createLlmClient, LlmBadResponseError, type LlmToolSpec, type Message } from '../../../../src/agent/llm/index.js';
import { startFakeLlm, type FakeLlm } from '../../../support/fake-llm-server.js';

const terminalTool: LlmToolSpec = {
  name: 'terminal',
  description: 'Run a shell command',
  parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
};

const userAsks = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const systemSays = (text: string): Message => ({ role: 'system', content: [{ type: 'text', text }] });

describe('OpenAI chat completions client', () => {
  let llm: FakeLlm;

  beforeEach(async () => {
    llm = await startFakeLlm();
  });
  afterEach(async () => {
    await llm.close();
  });

  it('sends the conversation to <base>/chat/completions and maps a text reply', async () => {
    llm.enqueue({ text: 'Hello there', usage: { prompt_tokens: 1000, completion_tokens: 200, cached_tokens: 400 } });
    const client = createLlmClient({ model: 'openai/gpt-4o', apiKey: 'sk-test-key-123456', baseUrl: llm.url });

    const response = await client.complete({ messages: [systemSays('You are helpful'), userAsks('Hi')], tools: [] });

    expect(response.message).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello there' }],
      tool_calls: null,
      reasoning_content: null,
      thinking_blocks: [],
    });
    expect(response.id).toBe('chatcmpl-fake-1');
    expect(response.finishReason).toBe('stop');
    expect(response.usage).toEqual({
      prompt_tokens: 1000,
      completion_tokens: 200,
      cache_read_tokens: 400,
      cache_write_tokens: 0,
      reasoning_tokens: 0,
      context_window: 128_000,
    });
    // gpt-4o: 600 uncached * 2.5 + 400 cached * 1.25 + 200 out * 10, per million
    expect(response.cost).toBeCloseTo((600 * 2.5 + 400 * 1.25 + 200 * 10) / 1e6, 10);
    expect(response.latencyMs).toBeGreaterThanOrEqual(0);

    const [sent] = llm.requests;
    expect(sent.api).toBe('openai');
    expect(sent.path).toBe('/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test-key-123456');
    expect(sent.body).toEqual({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are helpful' },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(response.rawRequest).toEqual(sent.body);
  });

  it('maps parallel tool calls to MessageToolCall[] with JSON string arguments, malformed ones kept raw', async () => {
    llm.enqueue({
      toolCalls: [
        { name: 'terminal', arguments: { command: 'ls -la' } },
        { name: 'terminal', arguments: '{"command": "pwd"' },
      ],
    });
    const client = createLlmClient({ model: 'gpt-4o-mini', apiKey: 'k', baseUrl: `${llm.url}/v1` });

    const response = await client.complete({ messages: [userAsks('look around')], tools: [terminalTool] });

    expect(llm.requests[0].path).toBe('/v1/chat/completions');
    expect(response.finishReason).toBe('tool_calls');
    expect(response.message.content).toEqual([]);
    expect(response.message.tool_calls).toEqual([
      { id: 'call_1_0', name: 'terminal', arguments: '{"command":"ls -la"}', origin: 'completion' },
      { id: 'call_1_1', name: 'terminal', arguments: '{"command": "pwd"', origin: 'completion' },
    ]);
  });

  it('sends tools in function format and tool results with their tool_call_id on the next turn', async () => {
    llm.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'echo hi' } }] }, { text: 'It printed hi' });
    const client = createLlmClient({ model: 'litellm_proxy/my-model', apiKey: 'k', baseUrl: llm.url });
    const history: Message[] = [systemSays('sys'), userAsks('say hi')];

    const first = await client.complete({ messages: history, tools: [terminalTool] });
    const call = first.message.tool_calls![0];
    history.push(first.message, {
      role: 'tool',
      tool_call_id: call.id,
      name: call.name,
      content: [{ type: 'text', text: 'hi\n' }],
    });
    const second = await client.complete({ messages: history, tools: [terminalTool] });

    expect(second.message.content).toEqual([{ type: 'text', text: 'It printed hi' }]);
    const sent = llm.requests[1].body;
    expect(sent.model).toBe('my-model');
    expect(sent.tools).toEqual([
      {
        type: 'function',
        function: { name: 'terminal', description: 'Run a shell command', parameters: terminalTool.parameters },
      },
    ]);
    expect(sent.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: call.id, type: 'function', function: { name: 'terminal', arguments: '{"command":"echo hi"}' } },
        ],
      },
      { role: 'tool', tool_call_id: call.id, content: 'hi\n' },
    ]);
  });

  it('picks up reasoning_content when the server returns it', async () => {
    llm.enqueue({ text: '42', reasoning: 'Six times seven.', usage: { reasoning_tokens: 7 } });
    const client = createLlmClient({ model: 'hosted_vllm/qwen', baseUrl: llm.url });

    const response = await client.complete({ messages: [userAsks('answer?')], tools: [] });

    expect(response.message.reasoning_content).toBe('Six times seven.');
    expect(response.usage.reasoning_tokens).toBe(7);
    expect(response.cost).toBe(0);
    expect(response.usage.context_window).toBe(0);
  });

  it('sends images as content parts and the output cap under the name the provider knows', async () => {
    const client = createLlmClient({ model: 'openrouter/openai/gpt-4o', apiKey: 'k', baseUrl: llm.url, maxOutputTokens: 500 });
    await client.complete({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image', image_urls: ['https://example.com/cat.png'] },
          ],
        },
      ],
      tools: [],
    });

    const sent = llm.requests[0].body;
    expect(sent.model).toBe('openai/gpt-4o');
    expect(sent.max_tokens).toBe(500);
    expect(sent.messages[0].content).toEqual([
      { type: 'text', text: 'what is this?' },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
    ]);
  });

  it('fails with LlmBadResponseError when the reply has no choices', async () => {
    llm.enqueue({ rawBody: { id: 'x', choices: [] } });
    const client = createLlmClient({ model: 'gpt-4o', apiKey: 'k', baseUrl: llm.url, maxRetries: 0 });

    await expect(client.complete({ messages: [userAsks('hi')], tools: [] })).rejects.toBeInstanceOf(LlmBadResponseError);
  });

  it('fails with LlmBadResponseError when the reply is not JSON', async () => {
    llm.enqueue({ rawBody: '<html>gateway</html>' });
    const client = createLlmClient({ model: 'gpt-4o', apiKey: 'k', baseUrl: llm.url, maxRetries: 0 });

    await expect(client.complete({ messages: [userAsks('hi')], tools: [] })).rejects.toBeInstanceOf(LlmBadResponseError);
  });

  it('keeps the key out of the client object itself', () => {
    const client = createLlmClient({ model: 'gpt-4o', apiKey: 'sk-hidden-in-client-42', baseUrl: llm.url });

    expect(JSON.stringify(client)).not.toContain('sk-hidden-in-client-42');
    expect(inspect(client, { depth: 10 })).not.toContain('sk-hidden-in-client-42');
  });
});
