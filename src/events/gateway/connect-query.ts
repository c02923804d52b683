import { parseDateBound } from '../../common/validation/is-date-or-date-time.js';
import type { ValidationIssue } from '../../common/validation/validation-issue.js';

/** What a connecting client asked to be sent before live events. */
export type ReplayRequest =
  | { kind: 'none' }
  | { kind: 'all' }
  | { kind: 'after-event'; eventId: string }
  /** The reference's `resend_mode=since`: from the first event stamped at or after `timestamp`. */
  | { kind: 'since'; timestamp: Date };

export interface ConnectQuery {
  sessionApiKey: string | null;
  replay: ReplayRequest;
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);

/**
 * The socket's query string. When several replay parameters are given, `after_id` wins over
 * `resend_all` / `resend_mode=all`, which win over `resend_mode=since`. Unknown parameters are ignored.
 */
export function parseConnectQuery(search: URLSearchParams): { query: ConnectQuery; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const issue = (name: string, msg: string, type: string) => issues.push({ loc: ['query', name], msg, type });

  let resendAll = false;
  const resendAllRaw = search.get('resend_all');
  if (resendAllRaw !== null) {
    const word = resendAllRaw.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) resendAll = true;
    else if (!FALSE_WORDS.has(word)) issue('resend_all', 'Input should be a valid boolean', 'bool_parsing');
  }

  const afterId = search.get('after_id');
  if (afterId !== null && (afterId.trim() === '' || afterId.length > 200)) {
    issue('after_id', 'after_id must name an event id', 'value_error');
  }

  const resendMode = search.get('resend_mode');
  if (resendMode !== null && resendMode !== 'all' && resendMode !== 'since') {
    issue('resend_mode', "Input should be 'all' or 'since'", 'literal_error');
  }

  let since: Date | null = null;
  const afterTimestamp = search.get('after_timestamp');
  if (afterTimestamp !== null) {
    since = parseDateBound(afterTimestamp)?.date ?? null;
    if (!since) issue('after_timestamp', 'after_timestamp must be an ISO 8601 date or date-time', 'datetime_parsing');
  } else if (resendMode === 'since') {
    issue('after_timestamp', 'after_timestamp is required with resend_mode=since', 'missing');
  }

  let replay: ReplayRequest = { kind: 'none' };
  if (afterId) replay = { kind: 'after-event', eventId: afterId.trim() };
  else if (resendAll || resendMode === 'all') replay = { kind: 'all' };
  else if (resendMode === 'since' && since) replay = { kind: 'since', timestamp: since };

  return { query: { sessionApiKey: search.get('session_api_key'), replay }, issues };
}
