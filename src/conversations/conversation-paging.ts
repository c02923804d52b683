import { RequestValidationException } from '../common/validation/validation-issue.js';
import type { ConversationSortOrder } from './dto/search-conversations-query.dto.js';

export function sortSpec(order: ConversationSortOrder): { column: 'created_at' | 'updated_at'; direction: 'ASC' | 'DESC' } {
  return {
    column: order.startsWith('UPDATED_AT') ? 'updated_at' : 'created_at',
    direction: order.endsWith('_DESC') ? 'DESC' : 'ASC',
  };
}

/** An opaque keyset cursor: the sort timestamp and id of the last item of the previous page. */
export function encodePageToken(time: Date, id: string): string {
  return Buffer.from(JSON.stringify([time.toISOString(), id])).toString('base64url');
}

export function decodePageToken(token: string): { time: Date; id: string } {
  try {
    const [time, id] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as [string, string];
    const date = new Date(time);
    if (typeof id !== 'string' || Number.isNaN(date.getTime())) throw new Error('bad token');
    return { time: date, id };
  } catch {
    throw RequestValidationException.single(['query', 'page_id'], 'page_id is not a page token this service issued', 'value_error');
  }
}
