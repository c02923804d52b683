import type { RawData } from 'ws';
import { AppValidationPipe } from '../../common/validation/app-validation.pipe.js';
import { RequestValidationException, type ValidationIssue } from '../../common/validation/validation-issue.js';
import { SendMessageDto } from '../dto/requests/send-message.dto.js';

export type ClientFrame = { message: SendMessageDto } | { issues: ValidationIssue[] };

export type AuthFrame = { sessionApiKey: string } | null;

const validationPipe = new AppValidationPipe();

export function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

/**
 * A client frame is a send-message request, validated exactly as the body of
 * POST /api/conversations/{id}/events, except that `run` defaults to true (as in the reference).
 */
export async function parseClientFrame(data: RawData): Promise<ClientFrame> {
  let value: unknown;
  try {
    value = JSON.parse(rawText(data));
  } catch {
    return { issues: [{ loc: ['body'], msg: 'JSON decode error: the frame is not valid JSON', type: 'json_invalid' }] };
  }
  if (isPlainObject(value) && !('run' in value)) value = { ...value, run: true };
  try {
    const message = (await validationPipe.transform(value, { type: 'body', metatype: SendMessageDto })) as SendMessageDto;
    return { message };
  } catch (error) {
    if (error instanceof RequestValidationException) return { issues: error.issues };
    throw error;
  }
}

/** `{"type": "auth", "session_api_key": "..."}`, or null for anything else. */
export function parseAuthFrame(data: RawData): AuthFrame {
  try {
    const value: unknown = JSON.parse(rawText(data));
    if (isPlainObject(value) && value.type === 'auth' && typeof value.session_api_key === 'string') {
      return { sessionApiKey: value.session_api_key };
    }
  } catch {
    // not JSON: not an auth frame
  }
  return null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
