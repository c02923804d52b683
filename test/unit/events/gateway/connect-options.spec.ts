import { closeReason } from '../../../../src/events/gateway/close-codes.js';
import { parseConnectQuery } from '../../../../src/events/gateway/connect-query.js';
import { compilePathPattern } from '../../../../src/events/gateway/path-ws-adapter.js';

const parse = (query: string) => parseConnectQuery(new URLSearchParams(query));

describe('parseConnectQuery', () => {
  it('reads the key and defaults to no replay', () => {
    expect(parse('session_api_key=k')).toEqual({ query: { sessionApiKey: 'k', replay: { kind: 'none' } }, issues: [] });
    expect(parse('').query.sessionApiKey).toBeNull();
  });

  it('gives after_id precedence over resend_all, and resend_all over resend_mode=since', () => {
    expect(parse('resend_all=true&after_id=abc').query.replay).toEqual({ kind: 'after-event', eventId: 'abc' });
    expect(parse('resend_all=1&resend_mode=since&after_timestamp=2024-01-01').query.replay).toEqual({ kind: 'all' });
    expect(parse('resend_mode=all').query.replay).toEqual({ kind: 'all' });
    expect(parse('resend_all=false').query.replay).toEqual({ kind: 'none' });
    expect(parse('resend_mode=since&after_timestamp=2024-05-01T10:00:00').query.replay).toEqual({
      kind: 'since',
      timestamp: new Date('2024-05-01T10:00:00Z'),
    });
  });

  it('reports invalid values with query locations', () => {
    const { issues } = parse('resend_all=perhaps&resend_mode=later&after_timestamp=soon&after_id=');
    expect(issues.map((issue) => issue.loc)).toEqual([
      ['query', 'resend_all'],
      ['query', 'after_id'],
      ['query', 'resend_mode'],
      ['query', 'after_timestamp'],
    ]);
    expect(parse('resend_mode=since').issues).toEqual([
      { loc: ['query', 'after_timestamp'], msg: 'after_timestamp is required with resend_mode=since', type: 'missing' },
    ]);
  });
});

describe('compilePathPattern', () => {
  const pattern = compilePathPattern('/sockets/events/:conversation_id');

  it('captures path parameters', () => {
    expect(pattern.exec('/sockets/events/abc')?.groups).toEqual({ conversation_id: 'abc' });
    expect(pattern.exec('/sockets/events/abc/')?.groups).toEqual({ conversation_id: 'abc' });
  });

  it('matches nothing else', () => {
    for (const path of ['/sockets/events', '/sockets/events/', '/sockets/events/a/b', '/x/sockets/events/a', '/sockets/eventsX/a']) {
      expect(pattern.test(path)).toBe(false);
    }
  });

  it('matches static paths exactly', () => {
    expect(compilePathPattern('/a.b').test('/a.b')).toBe(true);
    expect(compilePathPattern('/a.b').test('/axb')).toBe(false);
  });
});

describe('closeReason', () => {
  it('keeps reasons within 123 bytes without splitting a character', () => {
    expect(closeReason('short')).toBe('short');
    const cut = closeReason('é'.repeat(100));
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(123);
    expect(cut).toBe('é'.repeat(61));
  });
});
