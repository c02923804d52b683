import { createTestDatabase } from '../support/test-database.js';
import { HttpClient } from '../support/http-client.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';

describe('operations routes', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: ServiceProcess;
  let http: HttpClient;

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await startServiceProcess({ databaseUrl: database.url });
    http = new HttpClient(service.url);
  });
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it.each(['/alive', '/health'])('%s answers ok without a key', async (path) => {
    const response = await http.get(path);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
  });

  it('/ready reports the database and migrations', async () => {
    const response = await http.get('/ready');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ready', database: 'ok', migrations: 'applied', live_events: 'listening' });
  });

  it('serves the OpenAPI document and the Swagger UI without a key', async () => {
    const document = await http.get('/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.openapi).toMatch(/^3\./);
    expect(document.body.components.securitySchemes['X-Session-API-Key']).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'X-Session-API-Key',
    });
    const ui = await http.get('/docs');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger');
  });

  it('documents every path parameter, so each route can be tried from Swagger UI', async () => {
    const document = (await http.get('/openapi.json')).body as { paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>> };
    const undocumented: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const declared = new Set((operation.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name));
        for (const [, name] of path.matchAll(/{(\w+)}/g)) if (!declared.has(name)) undocumented.push(`${method.toUpperCase()} ${path}: ${name}`);
      }
    }
    expect(undocumented).toEqual([]);
    expect(Object.keys(document.paths).length).toBeGreaterThan(25);
  });

  it('an unknown route gets a JSON 404 with detail (after 401 for /api)', async () => {
    expect((await http.get('/nothing-here')).body).toEqual({ detail: 'Cannot GET /nothing-here' });
  });

  it('malformed JSON is a 422 json_invalid, never a stack', async () => {
    const response = await http.post('/alive', { rawBody: '{"a": ' });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ detail: [{ loc: ['body'], msg: expect.any(String), type: 'json_invalid' }] });
  });

  it('a body over the limit is 413', async () => {
    const response = await http.post('/alive', { rawBody: JSON.stringify({ text: 'x'.repeat(1024 * 1024 + 10) }) });
    expect(response.status).toBe(413);
    expect(response.body.detail).toMatch(/larger than/);
  });
});
