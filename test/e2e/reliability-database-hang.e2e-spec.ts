import { PrivatePostgres, ServiceClient, sleep } from './reliability.support.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';

describe('reliability: the database hangs instead of refusing', () => {
  let postgres: PrivatePostgres;
  let service: ServiceProcess;
  let client: ServiceClient;

  beforeAll(async () => {
    postgres = await PrivatePostgres.start();
    service = await startServiceProcess({ databaseUrl: postgres.url, env: { DATABASE_QUERY_TIMEOUT_MS: '1500' } });
    client = new ServiceClient(service.url);
  });
  afterAll(async () => {
    postgres?.thaw();
    await service?.stop();
    await postgres?.dispose();
  });

  it('requests fail within the query timeout with a clean 503, and work again once it answers', async () => {
    const created = await client.request('POST', '/api/conversations', { title: 'before the hang' });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;

    postgres.freeze();
    try {
      const started = Date.now();
      const during = await client.request('POST', `/api/conversations/${id}/events`, { content: [{ text: 'while frozen' }] });
      const elapsed = Date.now() - started;
      expect(during.status).toBe(503);
      expect(during.body).toEqual({ detail: expect.any(String) });
      expect(during.raw).not.toMatch(/\n\s+at /);
      // Bounded by the query timeout (plus the client-side margin), not by how long the database hangs.
      expect(elapsed).toBeLessThan(8_000);
    } finally {
      postgres.thaw();
    }

    await sleep(500);
    const after = await client.request('POST', `/api/conversations/${id}/events`, { content: [{ text: 'after the hang' }] });
    expect(after.status).toBe(200);
    const page = await client.request('GET', `/api/conversations/${id}/events`);
    const texts = (page.body as { events: Array<{ llm_message?: { content: Array<{ text: string }> } }> }).events.map(
      (event) => event.llm_message?.content[0]?.text,
    );
    expect(texts).toContain('after the hang');
    // The frozen write either committed or not; it is never there twice.
    expect(texts.filter((text) => text === 'while frozen').length).toBeLessThanOrEqual(1);
  });
});
