import { inspect } from 'node:util';

import { jest } from '@jest/globals';

import {
  createLlmClient,
  LlmAbortedError,
  LlmAuthenticationError,
  LlmBadRequestError,
  LlmContextWindowExceededError,
  LlmError,
  LlmRateLimitError,
  LlmUnavailableError,
  type LlmConfig,
  type Message,
} from '../../../../src/agent/llm/index.js';
import { startFakeLlm, type FakeLlm } from '../../../support/fake-llm-server.js';

const API_KEY = 'sk-proj-SuperSecretKeyValue0123456789';
const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }];

async function failureOf(promise: Promise<unknown>): Promise<LlmError> {
  try {
    await promise;
  } catch (error) {
    return error as LlmError;
  }
  throw new Error('expected the call to fail');
}

/** Every way an error can reach a log line or a response body. */
function everyRenderingOf(error: unknown): string {
  const err = error as Error;
  return [String(err), err.message, err.stack, JSON.stringify(err), inspect(err, { depth: 10, showHidden: true })].join('\n');
}

describe.each([
  ['openai', 'openai/gpt-4o'],
  ['anthropic', 'anthropic/claude-sonnet-4-5'],
])('LLM failures over the %s wire format', (_api, model) => {
  let llm: FakeLlm;
  const configFor = (overrides: Partial<LlmConfig> = {}): LlmConfig => ({
    model,
    apiKey: API_KEY,
    baseUrl: llm.url,
    maxRetries: 2,
    timeoutMs: 2_000,
    ...overrides,
  });

  beforeEach(async () => {
    llm = await startFakeLlm();
  });
  afterEach(async () => {
    await llm.close();
  });

  it('retries a 500 and returns the answer that follows', async () => {
    llm.enqueue({ status: 500 }, { text: 'recovered' });

    const response = await createLlmClient(configFor()).complete({ messages, tools: [] });

    expect(response.message.content).toEqual([{ type: 'text', text: 'recovered' }]);
    expect(llm.requests).toHaveLength(2);
  });

  it('retries a dropped connection', async () => {
    llm.enqueue({ dropConnection: true }, { text: 'back' });

    const response = await createLlmClient(configFor()).complete({ messages, tools: [] });

    expect(response.message.content).toEqual([{ type: 'text', text: 'back' }]);
    expect(llm.requests).toHaveLength(2);
  });

  it('gives up on a hanging server after the timeout and every retry with LlmUnavailableError', async () => {
    llm.enqueue({ hang: true }, { hang: true });
    const startedAt = Date.now();

    const error = await failureOf(
      createLlmClient(configFor({ timeoutMs: 200, maxRetries: 1 })).complete({ messages, tools: [] }),
    );

    expect(error).toBeInstanceOf(LlmUnavailableError);
    expect(error.message).toMatch(/did not answer in time \(2 attempts\)/);
    expect(llm.requests).toHaveLength(2);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(400);
  });

  it('reports an unreachable server as LlmUnavailableError', async () => {
    const url = llm.url;
    await llm.close();

    const error = await failureOf(
      createLlmClient({ model, apiKey: API_KEY, baseUrl: url, maxRetries: 0 }).complete({ messages, tools: [] }),
    );

    expect(error).toBeInstanceOf(LlmUnavailableError);
    expect(error.message).toMatch(/could not be reached/);
    llm = await startFakeLlm(); // afterEach closes it
  });

  it('maps 5xx after every retry to LlmUnavailableError with the status', async () => {
    llm.enqueue(...Array.from({ length: 3 }, () => ({ status: 503, headers: { 'retry-after-ms': '5' } })));

    const error = await failureOf(createLlmClient(configFor()).complete({ messages, tools: [] }));

    expect(error).toBeInstanceOf(LlmUnavailableError);
    expect(error.status).toBe(503);
    expect(llm.requests).toHaveLength(3);
  });

  it('maps a persisting 429 to LlmRateLimitError', async () => {
    llm.enqueue(...Array.from({ length: 3 }, () => ({ status: 429, headers: { 'retry-after-ms': '5' } })));

    const error = await failureOf(createLlmClient(configFor()).complete({ messages, tools: [] }));

    expect(error).toBeInstanceOf(LlmRateLimitError);
    expect(llm.requests).toHaveLength(3);
  });

  it('maps the provider\'s "context too long" to LlmContextWindowExceededError without retrying', async () => {
    llm.enqueue({ contextWindowExceeded: true });

    const error = await failureOf(createLlmClient(configFor()).complete({ messages, tools: [] }));

    expect(error).toBeInstanceOf(LlmContextWindowExceededError);
    expect(llm.requests).toHaveLength(1);
  });

  it('maps another 4xx to LlmBadRequestError without retrying', async () => {
    llm.enqueue({ status: 404, errorMessage: 'The model does not exist' });

    const error = await failureOf(createLlmClient(configFor()).complete({ messages, tools: [] }));

    expect(error).toBeInstanceOf(LlmBadRequestError);
    expect(error.message).toMatch(/HTTP 404.*The model does not exist/);
    expect(llm.requests).toHaveLength(1);
  });

  it('maps 401 to LlmAuthenticationError and never lets the key out, even when the provider echoes it', async () => {
    llm.enqueue({ status: 401 });
    const printed: string[] = [];
    const consoleSpies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((level) =>
      jest.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        printed.push(args.map((arg) => inspect(arg)).join(' '));
      }),
    );
    const stderrSpy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
      printed.push(String(chunk));
      return true;
    });

    try {
      const error = await failureOf(createLlmClient(configFor()).complete({ messages, tools: [] }));

      expect(error).toBeInstanceOf(LlmAuthenticationError);
      expect(error.status).toBe(401);
      expect(llm.requests).toHaveLength(1);
      // The fake really did echo the key, so this checks redaction rather than luck.
      expect(error.message).toMatch(/Incorrect API key provided: \[REDACTED\]/);
      expect(everyRenderingOf(error)).not.toContain(API_KEY);
      expect(everyRenderingOf(error)).not.toContain('SuperSecretKeyValue');
      expect(Object.keys(error).sort()).toEqual(['name', 'status']);
      expect((error as Error & { cause?: unknown }).cause).toBeUndefined();
      expect(printed.join('\n')).not.toContain('SuperSecretKeyValue');
    } finally {
      consoleSpies.forEach((spy) => spy.mockRestore());
      stderrSpy.mockRestore();
    }
  });

  it('maps an aborted request to LlmAbortedError', async () => {
    llm.enqueue({ hang: true });
    const controller = new AbortController();
    const pending = createLlmClient(configFor()).complete({ messages, tools: [], signal: controller.signal });
    await llm.waitForRequests(1);
    controller.abort();

    await expect(pending).rejects.toBeInstanceOf(LlmAbortedError);
  });
});
