// The yardstick for "GET one event": a bare node:http server, run as its own process, that answers
// GET /api/conversations/{id}/events/{event_id} with the same primary-key SELECT the service makes,
// through a plain pg pool. No framework, no auth, no validation: the floor the service is measured against.
import http from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE) || 16 });
const ROUTE = /^\/api\/conversations\/([0-9a-fA-F-]{36})\/events\/([^/?]+)$/;

const server = http.createServer((req, res) => {
  const match = req.method === 'GET' ? ROUTE.exec(req.url ?? '') : null;
  if (!match) {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not found"}');
    return;
  }
  pool
    .query<{ json: string }>('SELECT payload::text AS json FROM events WHERE conversation_id = $1 AND id = $2', [
      match[1],
      decodeURIComponent(match[2]),
    ])
    .then(({ rows }) => {
      if (rows.length === 0) res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Event not found"}');
      else res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(rows[0].json);
    })
    .catch((error: Error) => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: error.message })));
});
server.keepAliveTimeout = 60_000;

server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`READY http://127.0.0.1:${address.port}\n`);
});

const stop = () => {
  server.close();
  server.closeAllConnections();
  void pool.end().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
