import { startFakeLlm, type FakeLlm } from '../../../support/fake-llm-server.js';

describe('fake LLM server', () => {
  let llm: FakeLlm;

  beforeEach(async () => {
    llm = await startFakeLlm({ defaultStep: { text: 'default reply' } });
  });
  afterEach(async () => {
    await llm.close();
  });

  const post = (path: string, body: unknown): Promise<Response> =>
    fetch(`${llm.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('answers queued steps in order, then the default, and records every request', async () => {
    llm.enqueue({ text: 'first' });

    const first: any = await (await post('/v1/chat/completions', { model: 'm', messages: [] })).json();
    const second: any = await (await post('/v1/messages', { model: 'c', messages: [] })).json();
    const unknown = await post('/nowhere', {});

    expect(first.choices[0].message.content).toBe('first');
    expect(second.content).toEqual([{ type: 'text', text: 'default reply' }]);
    expect(unknown.status).toBe(404);
    expect(llm.pending()).toBe(0);
    expect(llm.requests.map((request) => [request.api, request.path, request.body?.model])).toEqual([
      ['openai', '/v1/chat/completions', 'm'],
      ['anthropic', '/v1/messages', 'c'],
      ['unknown', '/nowhere', undefined],
    ]);
  });

  it('lets a test wait for requests and releases hanging ones on close', async () => {
    llm.enqueue({ hang: true });
    const hanging = post('/chat/completions', { model: 'm', messages: [] }).catch((error: unknown) => error);

    await llm.waitForRequests(1);
    await llm.close();

    // fetch's TypeError comes from another realm under jest's VM, so it is matched by name.
    expect(await hanging).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    llm = await startFakeLlm();
  });
});
