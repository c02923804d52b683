import { createTestDatabase } from '../support/test-database.js';
import { HttpClient } from '../support/http-client.js';
import { ALICE_KEY, BOB_KEY, startServiceProcess, type ServiceProcess } from '../support/service-process.js';

describe('rate limit', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ServiceProcess;

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await startServiceProcess({ databaseUrl: database.url, env: { RATE_LIMIT_PER_MINUTE: '5' } });
  });
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('answers 429 with Retry-After and a JSON detail past the limit, per key, never on operations routes', async () => {
    const alice = new HttpClient(service.url, ALICE_KEY);
    for (let index = 0; index < 5; index++) expect((await alice.get('/api/conversations/count')).status).toBe(200);
    const limited = await alice.get('/api/conversations/count');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body.detail).toMatch(/Rate limit exceeded/);
    // Another key has its own budget; health checks are never limited.
    expect((await new HttpClient(service.url, BOB_KEY).get('/api/conversations/count')).status).toBe(200);
    for (let index = 0; index < 10; index++) expect((await alice.get('/ready')).status).toBe(200);
  });
});
