import { createLlmClient, type LlmToolSpec, type Message } from '../../../../src/agent/llm/index.js';
import { startFakeLlm, type FakeLlm } from '../../../support/fake-llm-server.js';

const fileEditorTool: LlmToolSpec = {
  name: 'file_editor',
  description: 'View and edit files',
  parameters: { type: 'object', properties: { command: { type: 'string' }, path: { type: 'string' } } },
};

describe('Anthropic Messages client', () => {
  let llm: FakeLlm;

  beforeEach(async () => {
    llm = await startFakeLlm();
  });
  afterEach(async () => {
    await llm.close();
  });

  it('sends the system prompt as `system` and maps a text reply with usage and cost', async () => {
    llm.enqueue({ text: 'Hi!', usage: { prompt_tokens: 1000, completion_tokens: 100, cached_tokens: 300, cache_write_tokens: 200 } });
    const client = createLlmClient({ model: 'anthropic/claude-sonnet-4-5', apiKey: 'sk-ant-secret-1', baseUrl: llm.url });

    const response = await client.complete({
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Be brief', cache_prompt: true }] },
        { role: 'user', content: [{ type: 'text', text: 'Hello' }] },
      ],
      tools: [],
    });

    const [sent] = llm.requests;
    expect(sent.api).toBe('anthropic');
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers.authorization ?? sent.headers['x-api-key']).toMatch(/sk-ant-secret-1$/);
    expect(sent.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 8192,
      system: [{ type: 'text', text: 'Be brief', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
    });
    expect(response.id).toBe('msg_fake_1');
    expect(response.finishReason).toBe('end_turn');
    expect(response.message).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hi!' }],
      tool_calls: null,
      reasoning_content: null,
      thinking_blocks: [],
    });
    expect(response.usage).toEqual({
      prompt_tokens: 1000,
      completion_tokens: 100,
      cache_read_tokens: 300,
      cache_write_tokens: 200,
      reasoning_tokens: 0,
      context_window: 200_000,
    });
    expect(response.cost).toBeCloseTo((500 * 3 + 300 * 0.3 + 200 * 3.75 + 100 * 15) / 1e6, 10);
  });

  it('round-trips thinking blocks, tool_use and tool_result across turns', async () => {
    llm.enqueue(
      {
        thinking: 'I should look at both files.',
        redactedThinking: 'opaque-bytes',
        text: 'Let me look.',
        toolCalls: [
          { name: 'file_editor', arguments: { command: 'view', path: '/w/a.txt' } },
          { name: 'file_editor', arguments: { command: 'view', path: '/w/b.txt' } },
        ],
      },
      { text: 'Both files are empty.' },
    );
    const client = createLlmClient({ model: 'anthropic/claude-sonnet-4-5', apiKey: 'k', baseUrl: `${llm.url}/v1/` });
    const history: Message[] = [
      { role: 'system', content: [{ type: 'text', text: 'sys' }] },
      { role: 'user', content: [{ type: 'text', text: 'check the files' }] },
    ];

    const first = await client.complete({ messages: history, tools: [fileEditorTool] });

    expect(first.finishReason).toBe('tool_use');
    expect(first.message.thinking_blocks).toEqual([
      { type: 'thinking', thinking: 'I should look at both files.', signature: expect.any(String) },
      { type: 'redacted_thinking', data: 'opaque-bytes' },
    ]);
    expect(first.message.reasoning_content).toBe('I should look at both files.');
    expect(first.message.content).toEqual([{ type: 'text', text: 'Let me look.' }]);
    expect(first.message.tool_calls).toEqual([
      { id: 'toolu_1_0', name: 'file_editor', arguments: '{"command":"view","path":"/w/a.txt"}', origin: 'completion' },
      { id: 'toolu_1_1', name: 'file_editor', arguments: '{"command":"view","path":"/w/b.txt"}', origin: 'completion' },
    ]);
    expect(llm.requests[0].body.tools).toEqual([
      { name: 'file_editor', description: 'View and edit files', input_schema: fileEditorTool.parameters },
    ]);

    history.push(first.message);
    for (const call of first.message.tool_calls!) {
      history.push({ role: 'tool', tool_call_id: call.id, name: call.name, content: [{ type: 'text', text: '(empty)' }] });
    }
    history.push({ role: 'user', content: [{ type: 'text', text: 'and?' }] });
    const second = await client.complete({ messages: history, tools: [fileEditorTool] });

    expect(second.message.content).toEqual([{ type: 'text', text: 'Both files are empty.' }]);
    const signature = first.message.thinking_blocks![0].type === 'thinking' ? first.message.thinking_blocks![0].signature : null;
    expect(llm.requests[1].body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'check the files' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I should look at both files.', signature },
          { type: 'redacted_thinking', data: 'opaque-bytes' },
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'toolu_1_0', name: 'file_editor', input: { command: 'view', path: '/w/a.txt' } },
          { type: 'tool_use', id: 'toolu_1_1', name: 'file_editor', input: { command: 'view', path: '/w/b.txt' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1_0', content: [{ type: 'text', text: '(empty)' }] },
          { type: 'tool_result', tool_use_id: 'toolu_1_1', content: [{ type: 'text', text: '(empty)' }] },
          { type: 'text', text: 'and?' },
        ],
      },
    ]);
  });

  it('replays garbled tool arguments as an empty input and drops unsigned thinking', async () => {
    const client = createLlmClient({ model: 'anthropic/claude-haiku-4-5', apiKey: 'k', baseUrl: llm.url });
    await client.complete({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        {
          role: 'assistant',
          content: [],
          thinking_blocks: [{ type: 'thinking', thinking: 'from another provider', signature: null }],
          tool_calls: [{ id: 't1', name: 'file_editor', arguments: '{"command":', origin: 'completion' }],
        },
        { role: 'tool', tool_call_id: 't1', name: 'file_editor', content: [{ type: 'text', text: 'bad args' }] },
      ],
      tools: [fileEditorTool],
    });

    expect(llm.requests[0].body.messages[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'file_editor', input: {} }],
    });
  });

  it('sends extended thinking when a budget is configured', async () => {
    const client = createLlmClient({
      model: 'anthropic/claude-sonnet-4-5',
      apiKey: 'k',
      baseUrl: llm.url,
      maxOutputTokens: 16_000,
      thinkingBudgetTokens: 4_000,
    });
    await client.complete({ messages: [{ role: 'user', content: [{ type: 'text', text: 'think' }] }], tools: [] });

    expect(llm.requests[0].body).toMatchObject({ max_tokens: 16_000, thinking: { type: 'enabled', budget_tokens: 4_000 } });
  });
});
