import { isDatabaseUnavailable, registerDatabaseEndpoint } from '../../../src/common/errors/database-unavailable.js';

const socketError = (code: string, fields: Record<string, unknown> = {}) => Object.assign(new Error(`${fields.syscall ?? 'connect'} ${code}`), { code, ...fields });

describe('isDatabaseUnavailable', () => {
  beforeAll(() => registerDatabaseEndpoint('postgres://postgres@127.0.0.1:54999/db'));

  it.each([
    ['PostgreSQL shutting down (57P01)', { code: '57P01' }],
    ['cannot connect now (57P03)', { code: '57P03' }],
    ['a statement timeout (57014)', { code: '57014' }],
    ['a connection exception (class 08)', { code: '08006' }],
    ['the driver losing its connection', new Error('Connection terminated unexpectedly')],
    ['a query the database never answered', new Error('Query read timeout')],
    ['a refused connection to the database port', socketError('ECONNREFUSED', { port: 54999 })],
    ['a dropped pool connection (read ECONNRESET)', socketError('ECONNRESET', { syscall: 'read' })],
    ['a query error wrapping a socket error', Object.assign(new Error('query failed'), { driverError: socketError('EPIPE') })],
  ])('%s is an outage', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a wrong query (syntax error)', { code: '42601', message: 'syntax error' }],
    ['a unique violation', { code: '23505' }],
    ['a refused connection to another port (an LLM, an MCP server)', socketError('ECONNREFUSED', { port: 443 })],
    ['an error that only wraps a socket error as its cause', Object.assign(new Error('LLM unreachable'), { cause: socketError('ECONNRESET', { syscall: 'read' }) })],
    ['not an error at all', 'boom'],
  ])('%s is not', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
