// A scripted LLM on 127.0.0.1 speaking the real wire formats: OpenAI `POST /chat/completions`
// (and `/v1/chat/completions`) and Anthropic `POST /v1/messages`. The script lives in the test process;
// whatever calls `llm.url` (this process or a service in another one) gets the queued replies in order.
//
//   const llm = await startFakeLlm();
//   llm.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'ls' } }] }, { text: 'done' });
//   ... settings.llm_base_url = llm.url ...
//   expect(llm.requests[1].body.messages).toContainEqual(expect.objectContaining({ role: 'tool' }));
//   await llm.close();
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeToolCall {
  name: string;
  /** An object is sent as JSON; a string is sent as it is, so it may be malformed on purpose. */
  arguments?: Record<string, unknown> | string;
  id?: string;
}

export interface FakeUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  cached_tokens?: number;
  cache_write_tokens?: number;
  reasoning_tokens?: number;
}

export interface FakeLlmStep {
  text?: string;
  /** Several calls make one parallel batch. */
  toolCalls?: FakeToolCall[];
  /** OpenAI: `reasoning_content`; Anthropic: a signed thinking block (when `thinking` is not given). */
  reasoning?: string;
  /** Anthropic: a signed thinking block; OpenAI: `reasoning_content` (when `reasoning` is not given). */
  thinking?: string;
  /** Anthropic only: a redacted_thinking block with this data. */
  redactedThinking?: string;
  /** Defaults: 100 prompt, 20 completion tokens. */
  usage?: FakeUsage;
  model?: string;
  finishReason?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Answer once with this HTTP error status, in the API's error format. */
  status?: number;
  errorMessage?: string;
  errorCode?: string;
  /** Answer with the API's own "context window exceeded" error. */
  contextWindowExceeded?: boolean;
  /** Extra response headers (e.g. `retry-after-ms`). */
  headers?: Record<string, string>;
  /** Never answer; the request stays open until `close()`. */
  hang?: boolean;
  /** Destroy the socket without answering (a connection error for the client). */
  dropConnection?: boolean;
  /** Answer 200 with exactly this body (a string is sent verbatim) to test malformed responses. */
  rawBody?: unknown;
}

export type FakeLlmApi = 'openai' | 'anthropic' | 'unknown';

export interface FakeLlmRequest {
  api: FakeLlmApi;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when the body was not JSON). */
  body: any;
  receivedAt: Date;
}

export interface FakeLlm {
  /** `http://127.0.0.1:<port>`: the base URL for both APIs (`/v1` may be appended for OpenAI clients). */
  readonly url: string;
  readonly requests: FakeLlmRequest[];
  enqueue(...steps: FakeLlmStep[]): FakeLlm;
  /** The reply given when the queue is empty. */
  setDefault(step: FakeLlmStep): FakeLlm;
  /** Steps not consumed yet. */
  pending(): number;
  /** Empties the queue and the recorded requests. */
  reset(): void;
  /** Resolves once at least `count` requests have arrived. */
  waitForRequests(count: number, timeoutMs?: number): Promise<FakeLlmRequest[]>;
  close(): Promise<void>;
}

export interface FakeLlmOptions {
  defaultStep?: FakeLlmStep;
  /** The model named in replies when the request names none. */
  model?: string;
}

const DEFAULT_USAGE = { prompt_tokens: 100, completion_tokens: 20 };

export async function startFakeLlm(options: FakeLlmOptions = {}): Promise<FakeLlm> {
  const queue: FakeLlmStep[] = [];
  const requests: FakeLlmRequest[] = [];
  const waiters = new Set<() => void>();
  let defaultStep: FakeLlmStep = options.defaultStep ?? { text: 'ok' };
  let replyCounter = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `fake LLM failed: ${String(error)}` } });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    const path = (req.url ?? '/').split('?')[0];
    const api = apiOf(req.method ?? 'GET', path);
    let body: any;
    try {
      body = rawBody ? JSON.parse(rawBody) : undefined;
    } catch {
      body = undefined;
    }
    requests.push({ api, method: req.method ?? 'GET', path, headers: req.headers, body, receivedAt: new Date() });
    for (const wake of [...waiters]) wake();

    if (api === 'unknown') return sendJson(res, 404, { error: { message: `no route ${req.method} ${path}` } });
    if (body === undefined) return sendJson(res, 400, { error: { message: 'body is not JSON' } });

    const step = queue.shift() ?? defaultStep;
    if (step.hang) return; // answered never; close() ends the socket
    if (step.dropConnection) {
      req.socket.destroy();
      return;
    }
    if (step.delayMs) await new Promise((resolve) => setTimeout(resolve, step.delayMs));
    const headers = step.headers ?? {};
    if (step.contextWindowExceeded) return sendContextWindowExceeded(res, api, headers);
    if (step.status && step.status >= 400) return sendError(res, api, step, req.headers, headers);
    if (step.rawBody !== undefined) {
      const text = typeof step.rawBody === 'string' ? step.rawBody : JSON.stringify(step.rawBody);
      res.writeHead(200, { 'content-type': 'application/json', ...headers });
      res.end(text);
      return;
    }
    replyCounter += 1;
    const model = step.model ?? (typeof body.model === 'string' ? body.model : (options.model ?? 'fake-model'));
    const reply = api === 'openai' ? openAiReply(step, model, replyCounter) : anthropicReply(step, model, replyCounter);
    sendJson(res, 200, reply, headers);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const llm: FakeLlm = {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue(...steps) {
      queue.push(...steps);
      return llm;
    },
    setDefault(step) {
      defaultStep = step;
      return llm;
    },
    pending: () => queue.length,
    reset() {
      queue.length = 0;
      requests.length = 0;
    },
    waitForRequests(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (requests.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(requests);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`fake LLM got ${requests.length} of ${count} requests in ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  return llm;
}

function apiOf(method: string, path: string): FakeLlmApi {
  if (method !== 'POST') return 'unknown';
  if (path === '/chat/completions' || path === '/v1/chat/completions') return 'openai';
  if (path === '/v1/messages') return 'anthropic';
  return 'unknown';
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function argumentsText(call: FakeToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
}

function openAiReply(step: FakeLlmStep, model: string, n: number): unknown {
  const toolCalls = (step.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `call_${n}_${index}`,
    type: 'function',
    function: { name: call.name, arguments: argumentsText(call) },
  }));
  const reasoning = step.reasoning ?? step.thinking;
  const usage = { ...DEFAULT_USAGE, ...step.usage };
  return {
    id: `chatcmpl-fake-${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: step.text ?? null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          ...(reasoning !== undefined ? { reasoning_content: reasoning } : {}),
        },
        finish_reason: step.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
    usage: {
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.prompt_tokens + usage.completion_tokens,
      prompt_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
      completion_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
    },
  };
}

function anthropicReply(step: FakeLlmStep, model: string, n: number): unknown {
  const content: unknown[] = [];
  const thinking = step.thinking ?? step.reasoning;
  if (thinking !== undefined) {
    const signature = Buffer.from(`fake-signature-${n}`).toString('base64');
    content.push({ type: 'thinking', thinking, signature });
  }
  if (step.redactedThinking !== undefined) content.push({ type: 'redacted_thinking', data: step.redactedThinking });
  if (step.text !== undefined) content.push({ type: 'text', text: step.text });
  (step.toolCalls ?? []).forEach((call, index) => {
    let input: unknown = call.arguments ?? {};
    if (typeof input === 'string') {
      try {
        input = JSON.parse(input);
      } catch {
        // Anthropic always sends an object; a malformed script string is passed as a bare string value.
      }
    }
    content.push({ type: 'tool_use', id: call.id ?? `toolu_${n}_${index}`, name: call.name, input });
  });
  const usage = { ...DEFAULT_USAGE, ...step.usage };
  const cacheRead = usage.cached_tokens ?? 0;
  const cacheWrite = usage.cache_write_tokens ?? 0;
  return {
    id: `msg_fake_${n}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: step.finishReason ?? (step.toolCalls?.length ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage: {
      // Anthropic counts cached input apart from input_tokens.
      input_tokens: Math.max(0, usage.prompt_tokens - cacheRead - cacheWrite),
      output_tokens: usage.completion_tokens,
      cache_read_input_tokens: cacheRead,
      cache_creation_input_tokens: cacheWrite,
    },
  };
}

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function sendError(
  res: ServerResponse,
  api: FakeLlmApi,
  step: FakeLlmStep,
  requestHeaders: IncomingHttpHeaders,
  headers: Record<string, string>,
): void {
  const status = step.status!;
  const message = step.errorMessage ?? defaultErrorMessage(status, requestHeaders);
  if (api === 'anthropic') {
    const type = step.errorCode ?? ANTHROPIC_ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
    return sendJson(res, status, { type: 'error', error: { type, message } }, headers);
  }
  const code = step.errorCode ?? (status === 401 ? 'invalid_api_key' : status === 429 ? 'rate_limit_exceeded' : null);
  const type = status >= 500 ? 'server_error' : 'invalid_request_error';
  sendJson(res, status, { error: { message, type, param: null, code } }, headers);
}

// A 401 echoes the key it was sent, as real providers do (partly masked), so clients' redaction gets tested.
function defaultErrorMessage(status: number, requestHeaders: IncomingHttpHeaders): string {
  if (status === 401) {
    const key = requestHeaders['x-api-key'] ?? requestHeaders.authorization?.replace(/^Bearer\s+/i, '') ?? '';
    return `Incorrect API key provided: ${String(key)}`;
  }
  if (status === 429) return 'Rate limit reached, please try again later';
  if (status >= 500) return 'The server had an error while processing your request';
  return `Request failed with status ${status}`;
}

function sendContextWindowExceeded(res: ServerResponse, api: FakeLlmApi, headers: Record<string, string>): void {
  if (api === 'anthropic') {
    return sendJson(
      res,
      400,
      { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } },
      headers,
    );
  }
  sendJson(
    res,
    400,
    {
      error: {
        message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    },
    headers,
  );
}
