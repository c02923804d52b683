/**
 * Whether an error means PostgreSQL could not be reached or went away (restart, crash, failover,
 * network), as opposed to a query that is wrong. Such a failure is transient: the request gets 503
 * with Retry-After rather than the 500 that means a bug.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  // TypeORM wraps what the driver threw in QueryFailedError.driverError; causes are not followed, so
  // an unreachable LLM or MCP server (a socket error wrapped by its client) never reads as the database.
  for (let current = error, depth = 0; isObject(current) && depth < 3; depth += 1) {
    const { code, message, port, syscall } = current as { code?: unknown; message?: unknown; port?: unknown; syscall?: unknown };
    if (typeof code === 'string' && (SERVER_UNAVAILABLE.has(code) || CONNECTION_EXCEPTION.test(code))) return true;
    if (typeof message === 'string' && DRIVER_MESSAGES.some((pattern) => pattern.test(message))) return true;
    // A socket error: the driver's own (inside a query error), or a connection refused by the database's port.
    if (typeof code === 'string' && SOCKET_CODES.has(code) && (depth > 0 || (typeof port === 'number' && databasePorts.has(port)))) {
      return true;
    }
    // A bare socket error (read ECONNRESET, write EPIPE) from a pool connection dropped as the server
    // goes down carries no port; on the HTTP path the LLM and MCP clients wrap theirs, so it is the database.
    if (depth === 0 && typeof code === 'string' && SOCKET_CODES.has(code) && (syscall === 'read' || syscall === 'write')) {
      return true;
    }
    current = (current as { driverError?: unknown }).driverError;
  }
  return false;
}

const databasePorts = new Set<number>();

/** The database module tells which port PostgreSQL listens on, so a refused connection to it is recognised. */
export function registerDatabaseEndpoint(url: string): void {
  try {
    const parsed = new URL(url);
    databasePorts.add(Number(parsed.port || 5432));
  } catch {
    // not a URL (a socket path): connection errors still arrive wrapped by the driver
  }
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

// PostgreSQL: admin_shutdown, crash_shutdown, cannot_connect_now (starting up, shutting down, recovering),
// and query_canceled, which statement_timeout raises when the database is too slow to answer.
const SERVER_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '57014']);
// PostgreSQL class 08: connection exception.
const CONNECTION_EXCEPTION = /^08[0-9A-Z]{3}$/;
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
// node-postgres and pg-pool report a lost or never-made connection without a code.
const DRIVER_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
  // query_timeout: the database took no notice of the query at all (frozen, partitioned).
  /^Query read timeout$/,
];
