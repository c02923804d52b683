import {
  addUsage,
  computeCost,
  createLlmClient,
  createMetrics,
  emptyUsage,
  isOverBudget,
  LlmConfigurationError,
  parseModelSpec,
  recordResponse,
  redactSecrets,
  type LlmUsage,
} from '../../../../src/agent/llm/index.js';

const usage = (overrides: Partial<LlmUsage>): LlmUsage => ({ ...emptyUsage(), ...overrides });

describe('parseModelSpec', () => {
  it.each([
    ['openai/gpt-4o', null, { provider: 'openai', wireModel: 'gpt-4o', wireFormat: 'openai-chat', baseUrl: 'https://api.openai.com/v1' }],
    ['gpt-4o', 'http://vllm:8000/v1/', { provider: 'openai', wireModel: 'gpt-4o', wireFormat: 'openai-chat', baseUrl: 'http://vllm:8000/v1' }],
    ['meta-llama/Llama-3.1-8B', 'http://vllm:8000/v1', { provider: 'openai', wireModel: 'meta-llama/Llama-3.1-8B', wireFormat: 'openai-chat', baseUrl: 'http://vllm:8000/v1' }],
    ['anthropic/claude-sonnet-4-5', null, { provider: 'anthropic', wireModel: 'claude-sonnet-4-5', wireFormat: 'anthropic-messages', baseUrl: 'https://api.anthropic.com' }],
    ['anthropic/claude-sonnet-4-5', 'http://proxy/v1', { provider: 'anthropic', wireModel: 'claude-sonnet-4-5', wireFormat: 'anthropic-messages', baseUrl: 'http://proxy' }],
    ['openrouter/anthropic/claude-sonnet-4.5', null, { provider: 'openrouter', wireModel: 'anthropic/claude-sonnet-4.5', wireFormat: 'openai-chat', baseUrl: 'https://openrouter.ai/api/v1' }],
    ['ollama/llama3.1', null, { provider: 'ollama', wireModel: 'llama3.1', wireFormat: 'openai-chat', baseUrl: 'http://localhost:11434/v1' }],
    ['litellm_proxy/gpt-4o', 'http://litellm:4000', { provider: 'litellm_proxy', wireModel: 'gpt-4o', wireFormat: 'openai-chat', baseUrl: 'http://litellm:4000' }],
  ])('%s with base %s', (model, baseUrl, expected) => {
    expect(parseModelSpec(model, baseUrl)).toEqual(expected);
  });

  it('refuses what cannot be called, saying what to set', () => {
    expect(() => parseModelSpec('  ')).toThrow(/set llm_model/);
    expect(() => parseModelSpec('litellm_proxy/gpt-4o')).toThrow(/set llm_base_url/);
    expect(() => createLlmClient({ model: 'hosted_vllm/qwen' })).toThrow(LlmConfigurationError);
    expect(() => parseModelSpec('anthropic/')).toThrow(LlmConfigurationError);
  });
});

describe('cost', () => {
  it('prices known models per million tokens, cached reads and writes at their own rates', () => {
    expect(computeCost('gpt-4o', usage({ prompt_tokens: 1_000_000, completion_tokens: 1_000_000 }))).toBeCloseTo(12.5);
    expect(
      computeCost('claude-sonnet-4-5-20250929', usage({ prompt_tokens: 300, cache_read_tokens: 100, cache_write_tokens: 100, completion_tokens: 10 })),
    ).toBeCloseTo((100 * 3 + 100 * 0.3 + 100 * 3.75 + 10 * 15) / 1e6, 12);
    expect(computeCost('anthropic/claude-sonnet-4.5', usage({ prompt_tokens: 1_000_000 }))).toBeCloseTo(3);
    expect(computeCost('gpt-4o-2024-08-06', usage({ completion_tokens: 1_000_000 }))).toBeCloseTo(10);
  });

  it('is 0 for unknown models', () => {
    expect(computeCost('my-local-model', usage({ prompt_tokens: 5000, completion_tokens: 5000 }))).toBe(0);
  });
});

describe('usage and metrics accumulation', () => {
  it('adds usages and keeps the larger context window', () => {
    const total = addUsage(
      usage({ prompt_tokens: 10, completion_tokens: 2, cache_read_tokens: 1, reasoning_tokens: 1, context_window: 128_000 }),
      usage({ prompt_tokens: 20, completion_tokens: 3, cache_write_tokens: 4, reasoning_tokens: 2, context_window: 0 }),
    );
    expect(total).toEqual({
      prompt_tokens: 30,
      completion_tokens: 5,
      cache_read_tokens: 1,
      cache_write_tokens: 4,
      reasoning_tokens: 3,
      context_window: 128_000,
    });
  });

  it('records responses into reference-shaped metrics and checks the budget', () => {
    const now = new Date('2025-01-01T00:00:00Z');
    let metrics = createMetrics('openai/gpt-4o', 0.01);
    metrics = recordResponse(metrics, { id: 'r1', usage: usage({ prompt_tokens: 100, completion_tokens: 10 }), cost: 0.004, latencyMs: 1500 }, { now });
    metrics = recordResponse(metrics, { id: 'r2', usage: usage({ prompt_tokens: 200, completion_tokens: 20 }), cost: 0.007, latencyMs: 500 }, { now });

    expect(metrics.accumulated_cost).toBeCloseTo(0.011);
    expect(metrics.accumulated_token_usage).toMatchObject({
      model: 'openai/gpt-4o',
      prompt_tokens: 300,
      completion_tokens: 30,
      per_turn_token: 220,
      response_id: 'r2',
    });
    expect(metrics.costs).toEqual([
      { model: 'openai/gpt-4o', cost: 0.004, timestamp: now.getTime() / 1000 },
      { model: 'openai/gpt-4o', cost: 0.007, timestamp: now.getTime() / 1000 },
    ]);
    expect(metrics.response_latencies.map((latency) => latency.latency)).toEqual([1.5, 0.5]);
    expect(metrics.token_usages.map((turn) => turn.response_id)).toEqual(['r1', 'r2']);
    expect(isOverBudget(metrics)).toBe(true);
    expect(isOverBudget(createMetrics('m'))).toBe(false);

    const compact = recordResponse(createMetrics('m'), { id: 'r', usage: usage({ prompt_tokens: 1 }), cost: 0, latencyMs: 1 }, { keepHistory: false });
    expect(compact.costs).toEqual([]);
    expect(compact.accumulated_token_usage?.prompt_tokens).toBe(1);
  });
});

describe('redactSecrets', () => {
  it('removes the given secret and key-shaped tokens, and caps the length', () => {
    expect(redactSecrets('bad key abc-plain-secret given', ['abc-plain-secret'])).toBe('bad key [REDACTED] given');
    expect(redactSecrets('Incorrect API key provided: sk-proj-abc***wxyz.')).toBe('Incorrect API key provided: [REDACTED]');
    expect(redactSecrets('header Authorization: Bearer tok_123 was refused')).toBe('header Authorization: Bearer [REDACTED] was refused');
    expect(redactSecrets('{"api_key": "xyz"}')).toBe('{"api_key": "[REDACTED]"}');
    expect(redactSecrets('x'.repeat(2000)).length).toBeLessThanOrEqual(501);
  });
});
